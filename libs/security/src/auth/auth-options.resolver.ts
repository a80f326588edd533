import type { OptionReport } from '#libs/core';
import type { McpAuthOptions } from './auth-options.interface';
import { checkClaimsMapping } from './claims-mapping';

const HASH = /^sha256:[0-9a-f]{64}$/;

/**
 * Reports each problem of the `auth` option, with how to fix it.
 * @param ownIssuer the host runs its own authorization server (`issuer` and `jwksUri` come from it)
 */
export function checkAuthOptions(auth: unknown, reportOption: OptionReport, ownIssuer = false): void {
  const report = (field: string, problem: string, fix: string) => reportOption(`auth${field}`, problem, fix);
  if (auth === undefined) return;
  const options = auth as McpAuthOptions & Record<string, unknown>;
  switch (options?.mode) {
    case 'none':
      break;
    case 'apiKey':
      if (!Array.isArray(options.keys) || options.keys.length === 0) {
        report(
          '.keys',
          'must list at least one key',
          "add { hash: hashApiKey('<key>'), principal: 'support-bot', scopes: ['tickets:read'] }",
        );
        break;
      }
      options.keys.forEach((key, index) => {
        if (typeof key?.hash !== 'string' || !HASH.test(key.hash))
          report(
            `.keys[${index}].hash`,
            'is not a "sha256:<64 hex>" hash',
            'store hashApiKey(key), never the key itself',
          );
        if (typeof key?.principal !== 'string' || !key.principal)
          report(`.keys[${index}].principal`, 'is required', "name who the key stands for, e.g. 'support-bot'");
        if (key?.expiresAt !== undefined && Number.isNaN(Date.parse(key.expiresAt)))
          report(`.keys[${index}].expiresAt`, 'is not a date', "write an ISO date, e.g. '2027-01-31T00:00:00Z'");
      });
      break;
    case 'oauth':
      for (const field of ['issuer', 'jwksUri', 'resource'] as const) {
        if (ownIssuer && field !== 'resource' && options[field] === undefined) continue;
        if (typeof options[field] !== 'string' || !URL.canParse(options[field]))
          report(
            `.${field}`,
            'must be an absolute URL',
            `set it, e.g. ${field}: 'https://${field === 'resource' ? 'mcp.desk.example/mcp' : 'id.desk.example'}'`,
          );
      }
      checkClaimsMapping(options.claims, 'auth.claims', reportOption);
      break;
    default:
      report(
        '.mode',
        `${JSON.stringify((auth as { mode?: unknown })?.mode)} is not an authentication mode`,
        "use 'none', 'apiKey' or 'oauth'",
      );
  }
}
