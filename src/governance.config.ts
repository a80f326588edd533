import { FileCatalogPinStore, type McpGovernanceOptions } from 'nest-mcp-host';
import { PostgresCatalogPinStore } from 'nest-mcp-host/postgres';
import type { HostEnvironment } from './host.config';
import { CLEARED_FOR_PERSONAL_DATA } from './support/personal-data';

/**
 * The names one desk operation has on every surface: the provider's tool, the REST route's
 * operationId, and the same behind another desk (`deskb__…` through the gateway,
 * `deskb_api_…` through `rest.apis`): one policy governs all of them.
 */
const everywhere = (tool: string, operationId: string) => [tool, operationId, `*__${tool}`, `*_${operationId}`];

/**
 * The desk's governance (docs/governance.md): who may open urgent tickets, which tickets a
 * customer's own agent reads, and customers' e-mail addresses kept from callers not cleared for
 * personal data. Policies are CEL conditions; `npm test` checks them with `McpPolicyTester`
 * (src/governance.config.spec.ts) and the matrix on every surface — the desk's REST API over
 * plain HTTP included (McpGovernanceGuard, src/support/rest/desk-api.decorator.ts).
 */
export const DESK_GOVERNANCE: McpGovernanceOptions = {
  policies: [
    {
      // Whatever sets a ticket's priority — opening it or updating it, as a tool, a REST route
      // called as a tool or over plain HTTP, here or behind the gateway — whatever it is called.
      id: 'urgent-needs-lead',
      appliesTo: { sets: ['priority'] },
      condition:
        "!has(args.priority) || args.priority != 'urgent' || principal.roles.exists(r, r in ['lead', 'admin'])",
      reason: 'only a team lead may open an urgent ticket; open it as "high" and ask a lead to raise it',
    },
    {
      // An agent of one customer (its credential carries a `tenant` claim: the customer's id)
      // searches that customer's tickets only, and reads no other ticket.
      id: 'tenant-searches-own-tickets',
      appliesTo: { names: everywhere('search_tickets', 'listTickets') },
      condition:
        '!has(principal.claims.tenant) || (has(args.customerId) && args.customerId == principal.claims.tenant)',
      reason: 'search with customerId set to your own customer',
    },
    {
      id: 'tenant-reads-own-tickets',
      stage: 'result',
      appliesTo: { names: everywhere('get_ticket', 'getTicket') },
      condition:
        '!has(principal.claims.tenant) || !has(result.structuredContent) || !has(result.structuredContent.customerId) || result.structuredContent.customerId == principal.claims.tenant',
      reason: "the ticket is another customer's",
    },
  ],
  guardrails: {
    rules: [
      // Secrets never go in or out, whoever calls.
      { detectors: ['api-key', 'private-key'], action: 'block' },
      // Customers' e-mail addresses leave only for callers cleared for personal data; the desk's
      // searches match on them for those callers only (src/support/personal-data.ts): a search
      // that finds by a redacted address would tell it (docs/governance.md, oracles).
      { detectors: ['email'], on: 'result', action: 'redact', unless: CLEARED_FOR_PERSONAL_DATA },
      // Text that addresses the model in what the desk answers (a customer's ticket telling the
      // agent to close every ticket): noted in the audit trail (indirect prompt injection, MCP06).
      { detectors: ['instructions'], on: 'result', action: 'flag' },
      // Card and bank account numbers in what a caller sends are noted in the audit trail.
      { detectors: ['card', 'iban'], on: 'arguments', action: 'flag' },
    ],
  },
};

/**
 * The desk's governance with where the pins of its pinned upstreams are kept (the example
 * upstream of config/upstreams.example.json is pinned): in PostgreSQL with DATABASE_URL (every
 * replica shares them), else in CATALOG_PINS_FILE. Opened only when something pinned is listed.
 */
export function deskGovernance(env: Pick<HostEnvironment, 'DATABASE_URL' | 'CATALOG_PINS_FILE'>): McpGovernanceOptions {
  return {
    ...DESK_GOVERNANCE,
    pinning: {
      store: env.DATABASE_URL
        ? new PostgresCatalogPinStore({ connectionString: env.DATABASE_URL })
        : new FileCatalogPinStore(env.CATALOG_PINS_FILE),
    },
  };
}
