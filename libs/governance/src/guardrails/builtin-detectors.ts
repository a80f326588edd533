import { HIDDEN_CHARACTERS, INSTRUCTION_RULES } from '../pins/instruction-flags';
import type { McpDetector } from './mcp-detector.interface';

/** Luhn's checksum, as payment card numbers carry it. */
export function luhnValid(text: string): boolean {
  const digits = text.replace(/\D/g, '');
  if (digits.length < 13 || digits.length > 19) return false;
  let sum = 0;
  for (let i = 0; i < digits.length; i++) {
    let digit = digits.charCodeAt(digits.length - 1 - i) - 48;
    if (i % 2 === 1) {
      digit *= 2;
      if (digit > 9) digit -= 9;
    }
    sum += digit;
  }
  return sum % 10 === 0;
}

/** ISO 13616's check (mod 97 of the rearranged number equals 1). */
export function ibanValid(text: string): boolean {
  const iban = text.replace(/\s/g, '').toUpperCase();
  if (!/^[A-Z]{2}\d{2}[A-Z0-9]{11,30}$/.test(iban)) return false;
  const rearranged = iban.slice(4) + iban.slice(0, 4);
  let remainder = 0;
  for (const char of rearranged) {
    const value = char >= 'A' ? char.charCodeAt(0) - 55 : char.charCodeAt(0) - 48;
    remainder = (remainder * (value > 9 ? 100 : 10) + value) % 97;
  }
  return remainder === 1;
}

/**
 * The detectors every host has. Shapes with a checksum (IBAN, card numbers) are kept only when it
 * holds; API keys are the well-known prefixed shapes (AWS, GitHub, Slack, Stripe, OpenAI-style,
 * Google) and private keys their whole block; `instructions` is text aimed at the model.
 */
export const BUILTIN_DETECTORS: readonly McpDetector[] = [
  {
    id: 'email',
    pattern: /[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}/,
    // Still an address: an output schema's `format: "email"` holds after redaction.
    replacement: 'redacted@redacted.invalid',
  },
  {
    id: 'phone',
    pattern: /(?<![\w+])\+?\d{1,3}[\s.-]?(?:\(\d{1,4}\)[\s.-]?)?\d{2,4}(?:[\s.-]?\d{2,4}){2,4}(?![\w])/,
    validate: (match) => {
      const digits = match.replace(/\D/g, '').length;
      return digits >= 9 && digits <= 15 && /[\s.()+-]/.test(match);
    },
  },
  { id: 'iban', pattern: /\b[A-Z]{2}\d{2}(?: ?[A-Z0-9]{4}){2,7}(?: ?[A-Z0-9]{1,4})?\b/, validate: ibanValid },
  { id: 'card', pattern: /\b\d(?:[ -]?\d){12,18}\b/, validate: luhnValid },
  {
    id: 'api-key',
    pattern:
      /\b(?:AKIA[0-9A-Z]{16}|gh[pousr]_[A-Za-z0-9]{36,}|github_pat_[A-Za-z0-9_]{22,}|xox[abprs]-[A-Za-z0-9-]{10,}|sk_(?:live|test)_[A-Za-z0-9]{16,}|sk-[A-Za-z0-9_-]{20,}|AIza[0-9A-Za-z_-]{35})\b/,
  },
  {
    id: 'private-key',
    // The whole block, header to trailer — RSA, EC, DSA, PKCS#8 (encrypted too), OpenSSH, OpenPGP
    // ("PRIVATE KEY BLOCK") — whatever separates its lines (a JSON text's `\n` too). A block
    // without its trailer (cut short) is taken to the end of the text: what follows the header is
    // the key's.
    pattern: /-----BEGIN ((?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?)-----[\s\S]*?(?:-----END \1-----|$)/,
  },
  {
    // Text that addresses the model rather than informs it (indirect prompt injection: a ticket a
    // customer wrote, a page an upstream fetched): the rules pinned definitions are reviewed with,
    // and characters a person does not see. Heuristic: flag it (audited), or block where it may not pass.
    id: 'instructions',
    pattern: new RegExp(
      [...INSTRUCTION_RULES.map((rule) => rule.pattern.source), HIDDEN_CHARACTERS.source]
        .map((s) => `(?:${s})`)
        .join('|'),
      'iu',
    ),
  },
];
