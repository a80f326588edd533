import { McpPolicyTester } from 'nest-mcp-host';
import { DESK_GOVERNANCE } from './governance.config';
import { CustomerTools } from './support/customer.tools';
import { TicketTools } from './support/ticket.tools';

/** The desk's policies, decided as the host decides them, without starting it (McpPolicyTester). */
describe('the desk governance', () => {
  let policies: McpPolicyTester;
  beforeAll(async () => {
    policies = await McpPolicyTester.create({ governance: DESK_GOVERNANCE, providers: [TicketTools, CustomerTools] });
  });

  const ticket = { customerId: 'C-1002', subject: 'Printer on fire', description: 'Again.' };

  it('lets only a lead (or an admin) open an urgent ticket, on every name the operation has', () => {
    expect(policies.may({ roles: ['agent'] }, 'create_ticket', { ...ticket, priority: 'urgent' })).toBe(false);
    expect(policies.may({ roles: ['lead'] }, 'create_ticket', { ...ticket, priority: 'urgent' })).toBe(true);
    expect(policies.may({ roles: ['agent'] }, 'create_ticket', { ...ticket, priority: 'high' })).toBe(true);
    const upstream = { kind: 'upstream' as const, name: 'deskb' };
    for (const tool of ['createTicket', 'deskb__create_ticket', 'deskb_api_createTicket'])
      expect(
        policies.decide({
          principal: { roles: ['agent'] },
          tool,
          args: { ...ticket, priority: 'urgent' },
          origin: upstream,
        }),
      ).toMatchObject({
        allowed: false,
        policy: 'urgent-needs-lead',
      });
  });

  it('governs what sets a priority, whatever it is called: an update too, and no search', () => {
    const agent = { roles: ['agent'] };
    expect(policies.may(agent, 'updateTicket', { ticketId: 'T-2001', priority: 'urgent' })).toBe(false);
    expect(policies.may({ roles: ['lead'] }, 'updateTicket', { ticketId: 'T-2001', priority: 'urgent' })).toBe(true);
    // A read that filters on it is not a write of it.
    expect(policies.may(agent, 'search_tickets', { priority: 'urgent' })).toBe(true);
    expect(
      policies.decide({
        principal: agent,
        tool: 'listTickets',
        args: { priority: 'urgent' },
        annotations: { readOnlyHint: true },
      }),
    ).toMatchObject({ allowed: true });
  });

  it("keeps a customer's agent to that customer's tickets", () => {
    const agent = { roles: ['agent'], claims: { tenant: 'C-1002' } };
    expect(policies.may(agent, 'search_tickets', { customerId: 'C-1002' })).toBe(true);
    expect(policies.may(agent, 'search_tickets', { customerId: 'C-1001' })).toBe(false);
    expect(policies.may(agent, 'search_tickets', {})).toBe(false);
    // Staff without a tenant search everything.
    expect(policies.may({ roles: ['agent'] }, 'search_tickets', {})).toBe(true);
  });

  it('blocks a secret sent in any argument, and notes a card number', () => {
    const secret = policies.decide({
      principal: { roles: ['agent'] },
      tool: 'create_ticket',
      args: { ...ticket, priority: 'low', description: 'key: sk_live_0123456789abcdefABCDEF' },
    });
    expect(secret).toMatchObject({
      allowed: false,
      message: expect.stringMatching(/^Refused by guardrail: the arguments contain api-key at \$\.description/),
    });
    const card = policies.decide({
      principal: { roles: ['agent'] },
      tool: 'create_ticket',
      args: { ...ticket, priority: 'low', description: 'charged twice on 4111 1111 1111 1111' },
    });
    expect(card).toMatchObject({
      allowed: true,
      audit: { findings: [{ detector: 'card', in: 'arguments', path: '$.description', action: 'flag' }] },
    });
  });
});
