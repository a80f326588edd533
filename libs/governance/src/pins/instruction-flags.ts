/** Instruction-like content aimed at the model, found in a definition's texts (shown to the reviewer). */
export interface InstructionFlag {
  /** The rule that found it (`ignore-instructions`, `hidden-characters`, …). */
  readonly rule: string;
  /** Which text: `description`, `title`, `inputSchema.properties.q.description`, … */
  readonly in: string;
  /** What was found, shortened (hidden characters named by code point). */
  readonly excerpt: string;
}

/** A rule of instruction-like content: its name and what it looks for. */
export interface InstructionRule {
  readonly id: string;
  readonly pattern: RegExp;
}

/**
 * What tool poisoning looks like in a description (OWASP MCP Top 10; the published rug-pull and
 * "line jumping" examples): text that addresses the model rather than describing the tool. A
 * reviewer sees each finding; none of them refuses anything by itself. The same rules are the
 * `instructions` guardrail detector, for what entries answer (indirect prompt injection).
 */
export const INSTRUCTION_RULES: readonly InstructionRule[] = [
  {
    id: 'ignore-instructions',
    pattern:
      /\b(?:ignore|disregard|forget|override)\b[^.\n]{0,40}\b(?:previous|prior|above|earlier|other|system|all)\b[^.\n]{0,20}\b(?:instructions?|prompts?|rules?|messages?)\b/i,
  },
  {
    id: 'must-call',
    pattern:
      /\b(?:you|the (?:assistant|model|ai|agent))\s+(?:must|should|have to|need to|are required to)\s+(?:always\s+|first\s+|also\s+)*(?:call|invoke|use|run|execute|read|send|include|pass)\b/i,
  },
  {
    id: 'conceal-from-user',
    pattern:
      /\b(?:do not|don't|never)\s+(?:tell|inform|mention|reveal|show|notify|let)\b[^.\n]{0,30}\b(?:the )?(?:user|human|person|operator)\b/i,
  },
  { id: 'instruction-tags', pattern: /<\/?\s*(?:important|system|instructions?|secret|hidden|admin)\s*>/i },
  {
    id: 'secret-access',
    pattern:
      /(?:~\/\.ssh|id_rsa|\.env\b|\/etc\/passwd|\bmcp\.json\b|\bapi[_ -]?keys?\b[^.\n]{0,30}\b(?:send|pass|include)\b)/i,
  },
  {
    id: 'role-play',
    pattern: /\b(?:you are now|act as|pretend to be|from now on,? you)\b/i,
  },
];

/** Zero-width and bidirectional control characters, and Unicode tag characters: text a person does not see. */
export const HIDDEN_CHARACTERS = /[\u200B-\u200F\u202A-\u202E\u2060-\u2064\u2066-\u2069\uFEFF\u{E0000}-\u{E007F}]/u;

/**
 * The instruction-like content in a definition: every string it holds (the description, the
 * title, the schema's property descriptions, a prompt's argument descriptions), checked against
 * the rules above and for characters a person reviewing it would not see.
 */
export function instructionFlagsOf(definition: unknown): InstructionFlag[] {
  const flags: InstructionFlag[] = [];
  const visit = (value: unknown, path: string) => {
    if (typeof value === 'string') {
      for (const rule of INSTRUCTION_RULES) {
        const match = rule.pattern.exec(value);
        if (match) flags.push({ rule: rule.id, in: path, excerpt: shorten(match[0]) });
      }
      const hidden = HIDDEN_CHARACTERS.exec(value);
      if (hidden)
        flags.push({
          rule: 'hidden-characters',
          in: path,
          excerpt: `U+${hidden[0].codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}`,
        });
    } else if (Array.isArray(value)) value.forEach((item, index) => visit(item, `${path}[${index}]`));
    else if (typeof value === 'object' && value !== null)
      for (const [key, item] of Object.entries(value)) visit(item, path ? `${path}.${key}` : key);
  };
  visit(definition, '');
  return flags;
}

function shorten(text: string): string {
  return text.length > 80 ? `${text.slice(0, 77)}…` : text;
}
