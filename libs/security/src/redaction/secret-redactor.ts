/** What replaces a secret. */
export const REDACTED = '[REDACTED]';

/** Built-in patterns: bearer tokens, `password=`-style pairs, credentials in URLs, well-known key formats. */
export const DEFAULT_SECRET_PATTERNS: readonly RegExp[] = [
  /(Bearer\s+)[A-Za-z0-9\-._~+/]+=*/gi,
  /(\b(?:password|passwd|pwd|secret|api[_-]?key|access[_-]?token|token)["']?\s*[:=]\s*["']?)[^\s"',;&]+/gi,
  /(:\/\/[^\s:/@]+:)[^\s@/]+(?=@)/g,
  /()\b(?:sk|rk|pk)_(?:live|test)_[A-Za-z0-9]{10,}/g,
  /()\bAKIA[0-9A-Z]{16}\b/g,
  /()\bgh[pousr]_[A-Za-z0-9]{36,}\b/g,
];

/**
 * Removes secrets from text the host sends out (tool results) or writes down (logs). Each
 * pattern keeps its first capture group (the label) and replaces the rest of the match.
 */
export class SecretRedactor {
  private readonly patterns: readonly RegExp[];
  /** All patterns in one, to let the (common) text with no secret through in one scan. */
  private readonly any: RegExp;

  constructor(extra: readonly (RegExp | string)[] = [], builtIn = true) {
    const custom = extra.map((pattern) =>
      typeof pattern === 'string' ? new RegExp(`()${pattern}`, 'g') : withLabelGroup(pattern),
    );
    this.patterns = [...(builtIn ? DEFAULT_SECRET_PATTERNS : []), ...custom];
    this.any = new RegExp(this.patterns.map((pattern) => `(?:${pattern.source})`).join('|') || '(?!)', 'i');
  }

  redact(text: string): string {
    if (!this.any.test(text)) return text;
    let result = text;
    for (const pattern of this.patterns) {
      result = result.replace(
        pattern,
        (_match, label: unknown) => `${typeof label === 'string' ? label : ''}${REDACTED}`,
      );
    }
    return result;
  }

  /** Redacts every string inside a JSON-like value; returns the value itself when nothing changed (no copy). */
  redactDeep<T>(value: T): T {
    if (typeof value === 'string') return this.redact(value) as T;
    if (Array.isArray(value)) {
      // Copied only when something in it was redacted, as objects are below.
      let items: unknown[] | undefined;
      for (let index = 0; index < value.length; index++) {
        const item: unknown = value[index];
        const redacted = this.redactDeep(item);
        if (redacted !== item) (items ??= [...value])[index] = redacted;
      }
      return (items ?? value) as T;
    }
    if (value && typeof value === 'object') {
      let copy: Record<string, unknown> | undefined;
      for (const key in value) {
        const item = (value as Record<string, unknown>)[key];
        const redacted = this.redactDeep(item);
        if (redacted !== item) (copy ??= { ...(value as Record<string, unknown>) })[key] = redacted;
      }
      return (copy ?? value) as T;
    }
    return value;
  }
}

/** Custom patterns get a leading empty group so that the whole match is replaced. */
function withLabelGroup(pattern: RegExp): RegExp {
  const flags = pattern.flags.includes('g') ? pattern.flags : `${pattern.flags}g`;
  return new RegExp(`()${pattern.source}`, flags);
}
