import { Bm25ToolRanker } from './bm25-tool-ranker';
import type { SearchableTool } from './searchable-tool';

const object = (properties: Record<string, unknown>) => ({ type: 'object', properties });

const CATALOG: SearchableTool[] = [
  {
    name: 'github__create_issue',
    description: 'Opens a new issue in a GitHub repository.',
    inputSchema: object({ repo: { type: 'string' }, title: { type: 'string' }, body: { type: 'string' } }),
  },
  {
    name: 'github__list_issues',
    description: 'Lists the issues of a GitHub repository, newest first.',
    inputSchema: object({ repo: { type: 'string' }, state: { enum: ['open', 'closed'] } }),
  },
  {
    name: 'jira.issue.transition',
    title: 'Transition issue',
    description: 'Moves a Jira issue to another workflow status.',
    inputSchema: object({ issueKey: { type: 'string' }, status: { type: 'string' } }),
  },
  {
    name: 'zendesk_close_ticket',
    description: 'Closes a support ticket with a resolution note.',
    inputSchema: object({ ticket_id: { type: 'string' }, resolution: { type: 'string' } }),
  },
  {
    name: 'zendeskCreateTicket',
    description: 'Creates a support ticket on behalf of a customer.',
    inputSchema: object({ subject: { type: 'string' }, requesterEmail: { type: 'string' } }),
  },
  {
    name: 'pagerduty-acknowledge-incident',
    description: 'Stops the escalation of an incident: someone is on it.',
    inputSchema: object({ incident_id: { type: 'string', description: 'The incident' } }),
  },
  {
    name: 'shipstationCreateLabel',
    description: 'Buys postage for a parcel.',
    inputSchema: object({ trackingNumber: { type: 'string' }, weightKg: { type: 'number' } }),
  },
  {
    name: 'stripe_refund_payment',
    description: 'Gives the customer their money back, in full or in part.',
    inputSchema: object({ payment_id: { type: 'string' }, amount: { type: 'integer', description: 'In cents' } }),
  },
  {
    name: 'slack_post_message',
    description: 'Posts a message to a channel.',
    inputSchema: object({ channel: { type: 'string' }, text: { type: 'string' } }),
  },
  {
    name: 'gcal_create_event',
    description: 'Schedules a meeting in Google Calendar and invites the attendees.',
    inputSchema: object({ start: { type: 'string', description: 'Start time, ISO 8601' }, attendees: {} }),
  },
];

function ranker(tools: readonly SearchableTool[] = CATALOG): Bm25ToolRanker {
  const bm25 = new Bm25ToolRanker();
  bm25.index(tools);
  return bm25;
}

const names = (hits: { name: string }[]) => hits.map(({ name }) => name);

describe('Bm25ToolRanker', () => {
  describe('ranking', () => {
    it.each([
      ['open a new GitHub issue', 'github__create_issue'],
      ['show me every issue of the repository, newest first', 'github__list_issues'],
      ['move a Jira issue to another status', 'jira.issue.transition'],
      ['closing support tickets', 'zendesk_close_ticket'],
      ['create a ticket for a customer', 'zendeskCreateTicket'],
      ['acknowledge the PagerDuty incident', 'pagerduty-acknowledge-incident'],
    ])('finds "%s" first', (query, expected) => {
      expect(names(ranker().search(query, { limit: 3 }))[0]).toBe(expected);
    });

    it('ranks a query that is exactly a tool name first, in any case', () => {
      // "github create issue"-like words score github__list_issues too; the exact name still wins.
      const bm25 = ranker();
      expect(names(bm25.search('github__list_issues', { limit: 2 }))).toEqual([
        'github__list_issues',
        'github__create_issue',
      ]);
      expect(names(bm25.search('  ZendeskCreateTicket ', { limit: 1 }))).toEqual(['zendeskCreateTicket']);
    });

    it('puts the exact name first even when another tool matches its words better', () => {
      const bm25 = ranker([
        { name: 'issues', description: 'Deprecated.' },
        { name: 'github_issues', title: 'Issues', description: 'Issues of a repository: list and filter issues.' },
      ]);
      expect(names(bm25.search('github issues', { limit: 2 }))).toEqual(['github_issues', 'issues']);
      expect(names(bm25.search('ISSUES', { limit: 2 }))).toEqual(['issues', 'github_issues']);
    });

    it('finds a tool by words only its description has', () => {
      expect(names(ranker().search('who is on call, stop the escalation', { limit: 1 }))).toEqual([
        'pagerduty-acknowledge-incident',
      ]);
      expect(names(ranker().search('money back', { limit: 5 }))).toEqual(['stripe_refund_payment']);
    });

    it('finds a tool by the name of one of its properties', () => {
      expect(names(ranker().search('tracking number', { limit: 5 }))).toEqual(['shipstationCreateLabel']);
      expect(names(ranker().search('weight in kg', { limit: 1 }))).toEqual(['shipstationCreateLabel']);
    });

    it('weighs a match in the name above the same match in a property description', () => {
      const bm25 = ranker([
        { name: 'export_report', inputSchema: object({ format: { description: 'csv or json' } }) },
        { name: 'csv_export' },
      ]);
      expect(names(bm25.search('csv', { limit: 2 }))).toEqual(['csv_export', 'export_report']);
    });

    it('scores best first and only returns tools that matched', () => {
      const hits = ranker().search('ticket', { limit: 10 });
      expect(names(hits).sort()).toEqual(['zendeskCreateTicket', 'zendesk_close_ticket']);
      expect(hits[0].score).toBeGreaterThanOrEqual(hits[1].score);
      expect(hits[1].score).toBeGreaterThan(0);
    });
  });

  describe('filter', () => {
    it('never returns a hidden tool, and fills the limit from the visible ones', () => {
      const bm25 = ranker();
      const all = names(bm25.search('issue', { limit: 10 }));
      expect(all.slice(0, 3).sort()).toEqual(['github__create_issue', 'github__list_issues', 'jira.issue.transition']);

      const hidden = new Set(all.slice(0, 2));
      const visible = names(bm25.search('issue', { limit: 2, filter: (name) => !hidden.has(name) }));
      expect(visible).toEqual(all.filter((name) => !hidden.has(name)).slice(0, 2));
      expect(visible.some((name) => hidden.has(name))).toBe(false);
    });

    it('hides an exact-name match too', () => {
      const hits = ranker().search('github__list_issues', {
        limit: 5,
        filter: (name) => name !== 'github__list_issues',
      });
      expect(names(hits)).not.toContain('github__list_issues');
      expect(names(hits)[0]).toBe('github__create_issue');
    });

    it('asks about each candidate at most once, and stops once the limit is filled', () => {
      const asked: string[] = [];
      ranker().search('issue', {
        limit: 1,
        filter: (name) => {
          asked.push(name);
          return asked.length === 2;
        },
      });
      expect(asked).toHaveLength(2);
      expect(new Set(asked).size).toBe(2);
    });

    it('returns nothing when the caller may see nothing', () => {
      expect(ranker().search('issue', { limit: 5, filter: () => false })).toEqual([]);
    });

    it('stays consistent when the filter throws or searches again', () => {
      const bm25 = ranker();
      const before = bm25.search('support ticket', { limit: 5 });
      expect(() =>
        bm25.search('support ticket', {
          limit: 5,
          filter: () => {
            throw new Error('policy unavailable');
          },
        }),
      ).toThrow('policy unavailable');
      const nested = bm25.search('support ticket', {
        limit: 5,
        filter: () => bm25.search('incident', { limit: 1 }).length === 1,
      });
      expect(nested).toEqual(before);
      expect(bm25.search('support ticket', { limit: 5 })).toEqual(before);
    });
  });

  describe('index', () => {
    it('replaces the previous index', () => {
      const bm25 = ranker();
      bm25.index([{ name: 'billing_list_invoices', description: 'Lists the invoices of a customer.' }]);
      expect(bm25.size).toBe(1);
      expect(bm25.search('ticket', { limit: 5 })).toEqual([]);
      expect(bm25.search('github__create_issue', { limit: 5 })).toEqual([]);
      expect(names(bm25.search('invoices', { limit: 5 }))).toEqual(['billing_list_invoices']);
    });

    it('keeps the last of two tools with the same name', () => {
      const bm25 = ranker([
        { name: 'notify', description: 'Sends an email.' },
        { name: 'notify', description: 'Sends a text message.' },
      ]);
      expect(bm25.size).toBe(1);
      expect(bm25.search('email', { limit: 5 })).toEqual([]);
      expect(names(bm25.search('text message', { limit: 5 }))).toEqual(['notify']);
    });

    it('reads tools without a description, title or schema', () => {
      expect(names(ranker([{ name: 'ping' }]).search('ping', { limit: 1 }))).toEqual(['ping']);
    });
  });

  describe('edge cases', () => {
    it.each([
      ['an empty query', ''],
      ['blanks', '   '],
      ['stop words only', 'what can you do for me'],
      ['unknown words', 'quantum entanglement'],
    ])('returns nothing for %s', (_case, query) => {
      expect(ranker().search(query, { limit: 5 })).toEqual([]);
    });

    it('returns nothing from an empty catalog, or before any index', () => {
      expect(new Bm25ToolRanker().search('ticket', { limit: 5 })).toEqual([]);
      expect(ranker([]).search('ticket', { limit: 5 })).toEqual([]);
    });

    it.each([0, -1, 0.5, Number.NaN])('returns nothing for a limit of %s', (limit) => {
      expect(ranker().search('ticket', { limit })).toEqual([]);
    });

    it('breaks ties by name, whatever the order the tools came in', () => {
      const twins = ['delta', 'alpha', 'charlie', 'bravo'].map((name) => ({
        name: `${name}_tool`,
        description: 'Identical',
      }));
      const forward = ranker(twins).search('identical', { limit: 4 });
      const backward = ranker([...twins].reverse()).search('identical', { limit: 4 });
      expect(names(forward)).toEqual(['alpha_tool', 'bravo_tool', 'charlie_tool', 'delta_tool']);
      expect(backward).toEqual(forward);
      expect(new Set(forward.map(({ score }) => score)).size).toBe(1);
    });

    it('gives the same scores on every search (the accumulators are reset)', () => {
      const bm25 = ranker();
      const first = bm25.search('create a support ticket', { limit: 5 });
      bm25.search('issue', { limit: 5 });
      expect(bm25.search('create a support ticket', { limit: 5 })).toEqual(first);
    });
  });

  describe('options', () => {
    it('leaves out a field weighed 0', () => {
      const bm25 = new Bm25ToolRanker({ weights: { propertyNames: 0 } });
      bm25.index(CATALOG);
      expect(bm25.search('tracking number', { limit: 5 })).toEqual([]);
      expect(names(bm25.search('postage', { limit: 5 }))).toEqual(['shipstationCreateLabel']);
    });

    it.each([
      [{ weights: { name: -1 } }, /weight of "name"/],
      [{ weights: { description: Number.NaN } }, /weight of "description"/],
      [{ k1: -0.5 }, /k1/],
      [{ b: 2 }, /b must be/],
    ])('refuses %j', (options, message) => {
      expect(() => new Bm25ToolRanker(options)).toThrow(RangeError);
      expect(() => new Bm25ToolRanker(options)).toThrow(message);
    });
  });
});
