import { BUILTIN_DETECTORS, type McpPrincipal } from 'nest-mcp-host';

/** The scope that clears a caller for customers' personal data (their e-mail addresses). */
export const PERSONAL_DATA_SCOPE = 'customers:pii';

/**
 * Who may read customers' e-mail addresses, as a CEL condition over `principal`: the guardrail
 * that redacts them for everyone else exempts these callers (src/governance.config.ts).
 */
export const CLEARED_FOR_PERSONAL_DATA = `'${PERSONAL_DATA_SCOPE}' in principal.scopes || 'admin' in principal.roles`;

/**
 * The same rule in TypeScript, for what the desk does itself: its searches match on e-mail
 * addresses only for these callers (personal-data.spec.ts holds the two to the same answers).
 * Anyone else could otherwise learn an address the guardrail redacts from which searches find
 * something (an oracle: docs/governance.md, "What redaction cannot hide").
 */
export function clearedForPersonalData(principal: Pick<McpPrincipal, 'scopes' | 'roles'> | undefined): boolean {
  return (
    principal !== undefined && (principal.scopes.includes(PERSONAL_DATA_SCOPE) || principal.roles.includes('admin'))
  );
}

const email = BUILTIN_DETECTORS.find((detector) => detector.id === 'email')!;
const EMAILS = new RegExp(email.pattern.source, 'g');

/** `text` as a caller who is not cleared reads it: each e-mail address replaced, as the guardrail replaces it. */
export function withoutEmails(text: string): string {
  return text.replace(EMAILS, email.replacement!);
}

/** The guardrail's e-mail pattern, for a store that matches in its database (PostgreSQL's regular expressions take it). */
export const EMAIL_PATTERN = email.pattern.source;

/** What a redacted address reads as. */
export const REDACTED_EMAIL = email.replacement!;
