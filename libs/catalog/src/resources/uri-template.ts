/**
 * RFC 6570 URI templates, levels 1 and 2, compiled for *matching*: `kb://articles/{slug}`
 * matches `kb://articles/vpn-setup` with `{ slug: 'vpn-setup' }`. Simple expressions (`{var}`)
 * match one path segment; reserved (`{+var}`) may span `/`; fragment (`{#var}`) matches after `#`.
 */
export class UriTemplate {
  readonly variables: readonly string[];
  /** The template with every expression replaced by its kind, to spot ambiguous templates. */
  readonly skeleton: string;
  private readonly pattern: RegExp;

  private constructor(
    readonly template: string,
    variables: string[],
    pattern: RegExp,
    skeleton: string,
  ) {
    this.variables = variables;
    this.pattern = pattern;
    this.skeleton = skeleton;
  }

  /** @throws Error saying what is wrong with the template. */
  static parse(template: string): UriTemplate {
    const variables: string[] = [];
    let source = '^';
    let skeleton = '';
    let last = 0;
    for (const match of template.matchAll(/\{([^{}]*)\}/g)) {
      const literal = template.slice(last, match.index);
      if (/[{}]/.test(literal)) throw new Error(`unbalanced braces in "${template}"`);
      source += escape(literal);
      skeleton += literal;
      last = match.index! + match[0].length;
      const expression = match[1];
      const operator = /^[+#]/.test(expression) ? expression[0] : '';
      const name = expression.slice(operator.length);
      if (/^[.;/?&=,!@|]/.test(expression))
        throw new Error(`"{${expression}}" needs RFC 6570 level 3 or 4; only levels 1–2 are supported`);
      if (!/^[A-Za-z0-9_]+$/.test(name)) throw new Error(`"{${expression}}" is not a single variable name`);
      if (variables.includes(name)) throw new Error(`variable "${name}" appears twice`);
      variables.push(name);
      source += operator === '+' ? '([^?#]+)' : operator === '#' ? '#(.+)' : '([^/?#]+)';
      skeleton += operator === '+' ? '{+}' : operator === '#' ? '{#}' : '{}';
    }
    const tail = template.slice(last);
    if (/[{}]/.test(tail)) throw new Error(`unbalanced braces in "${template}"`);
    if (!/^[A-Za-z][A-Za-z0-9+.-]*:/.test(template))
      throw new Error(`"${template}" does not start with a URI scheme (e.g. "kb://")`);
    return new UriTemplate(template, variables, new RegExp(`${source}${escape(tail)}$`), skeleton + tail);
  }

  /** The variables of `uri` if it matches, else `undefined`. */
  match(uri: string): Record<string, string> | undefined {
    const found = this.pattern.exec(uri);
    if (!found) return undefined;
    const values: Record<string, string> = {};
    this.variables.forEach((name, index) => (values[name] = safeDecode(found[index + 1])));
    return values;
  }
}

function escape(literal: string): string {
  return literal.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

function safeDecode(value: string): string {
  try {
    return decodeURIComponent(value);
  } catch {
    return value;
  }
}
