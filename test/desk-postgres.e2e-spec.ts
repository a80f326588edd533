import { Client as PgClient } from 'pg';
import { Logger } from '@nestjs/common';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { TicketClosedError } from '../src/support/errors/ticket-closed.error';
import { TicketNotFoundError } from '../src/support/errors/ticket-not-found.error';
import { InMemoryCustomersStore } from '../src/support/in-memory-customers.store';
import { InMemoryTicketsStore } from '../src/support/in-memory-tickets.store';
import { DeskDatabase } from '../src/support/postgres/desk-database';
import { PostgresCustomersStore } from '../src/support/postgres/postgres-customers.store';
import { PostgresTicketsStore } from '../src/support/postgres/postgres-tickets.store';
import { SEED_CUSTOMERS } from '../src/support/support.seed';
import type { TicketStatus } from '../src/support/support.types';
import type { TicketFilter } from '../src/support/tickets.store';
import { startDeskHost, type DeskHost } from './support/desk-host';
import { connectHttpClient } from './support/fixture-app';
import { freePort } from './support/free-port';
import { PostgresServer } from './support/postgres-server';
import { waitForAsync } from './support/wait-for';

/** One replica's view of the desk: its own pool on the shared database, and the stores over it. */
interface Replica {
  database: DeskDatabase;
  tickets: PostgresTicketsStore;
  customers: PostgresCustomersStore;
}

function replicaOn(url: string): Replica {
  const database = new DeskDatabase(url);
  return { database, tickets: new PostgresTicketsStore(database), customers: new PostgresCustomersStore(database) };
}

/** An HTTP request to a desk's REST API (authentication off: every caller is the local operator). */
async function rest(base: string, method: string, path: string, body?: unknown) {
  const response = await fetch(`${base}${path}`, {
    method,
    headers: body === undefined ? {} : { 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  return { status: response.status, body: text ? (JSON.parse(text) as Record<string, unknown>) : undefined };
}

const NEW_TICKET = {
  customerId: 'C-1004',
  subject: 'Payment page shows a blank screen',
  description: 'Since this morning the payment page stays blank in every browser.',
  priority: 'high' as const,
};

/**
 * The desk's customers and tickets in PostgreSQL (DATABASE_URL), against a real server started
 * privately for this file: replicas on one database see each other's writes, never share a ticket
 * id, cannot change a ticket another one closed, and seed the tables once.
 */
describe('support desk data in PostgreSQL', () => {
  let server: PostgresServer;
  let admin: PgClient;

  /** A new, empty database on the server, and its URL. */
  async function freshDatabase(name: string): Promise<string> {
    await admin.query(`CREATE DATABASE ${name}`);
    return server.url.replace(/\/postgres$/, `/${name}`);
  }

  /** Runs `sql` on the database at `url` through a connection of its own. */
  async function queryOn<Row extends Record<string, unknown>>(url: string, sql: string): Promise<Row[]> {
    const client = new PgClient({ connectionString: url });
    await client.connect();
    try {
      return (await client.query<Row>(sql)).rows;
    } finally {
      await client.end();
    }
  }

  beforeAll(async () => {
    // The replicas built here without an application log their seeding; the output would only be noise.
    Logger.overrideLogger(false);
    server = await PostgresServer.create();
    admin = new PgClient({ connectionString: server.url });
    await admin.connect();
  }, 60_000);
  afterAll(async () => {
    await admin?.end();
    await server?.dispose();
  });

  describe('start-up', () => {
    it('creates and seeds the tables once when three replicas start together, and never again', async () => {
      const url = await freshDatabase('desk_start');
      const replicas = [1, 2, 3].map(() => replicaOn(url));
      try {
        await Promise.all(replicas.map(({ database }) => database.onModuleInit()));
        const counts = `SELECT (SELECT count(*)::int FROM desk_customers) AS customers,
                               (SELECT count(*)::int FROM desk_tickets) AS tickets`;
        expect(await queryOn(url, counts)).toEqual([{ customers: 8, tickets: 20 }]);

        // Every ticket deleted, then a restart: the demo tickets do not come back, and numbering goes on.
        for (const { id } of await replicas[0].tickets.all()) await replicas[1].tickets.remove(id);
        const again = replicaOn(url);
        await again.database.onModuleInit();
        expect(await queryOn(url, counts)).toEqual([{ customers: 8, tickets: 0 }]);
        expect((await again.tickets.create(NEW_TICKET)).id).toBe('T-2021');
        await again.database.onApplicationShutdown();
      } finally {
        await Promise.all(replicas.map(({ database }) => database.onApplicationShutdown()));
      }
    });

    it('fails with an error naming DATABASE_URL, without its password, when the server cannot be reached', async () => {
      const url = `postgres://desk:hunter2@127.0.0.1:${await freePort()}/desk`;
      const error = (await new DeskDatabase(url).onModuleInit().catch((e: unknown) => e)) as Error;
      expect(error.name).toBe('DeskDatabaseError');
      expect(error.message).toContain(`(DATABASE_URL=postgres://desk:***@127.0.0.1:${new URL(url).port}/desk): `);
      expect(error.message).toContain('ECONNREFUSED');
      expect(error.message).not.toContain('hunter2');
    });
  });

  describe('two replicas, each with its own pool', () => {
    let url: string;
    let a: Replica;
    let b: Replica;

    beforeAll(async () => {
      url = await freshDatabase('desk_stores');
      [a, b] = [replicaOn(url), replicaOn(url)];
      await Promise.all([a.database.onModuleInit(), b.database.onModuleInit()]);
    });
    afterAll(async () => {
      await Promise.all([a?.database.onApplicationShutdown(), b?.database.onApplicationShutdown()]);
    });

    it('hold the same seed data as the in-memory stores, and answer searches alike', async () => {
      const memory = { tickets: new InMemoryTicketsStore(), customers: new InMemoryCustomersStore() };
      expect(await a.tickets.all()).toEqual(await memory.tickets.all());
      const filters: TicketFilter[] = [
        { status: 'open', limit: 100 },
        { status: 'pending', assignee: 'tom.becker', limit: 100 },
        { priority: 'urgent', customerId: 'C-1008', limit: 100 },
        { unassigned: true, limit: 100 },
        { unassigned: false, limit: 5 },
        { text: 'vat', limit: 100 },
        // Addresses in descriptions: matched only when the caller may read them, else as redacted.
        { text: 'contoso.example', limit: 100 },
        { text: 'contoso.example', emails: true, limit: 100 },
        { text: 'reply to redacted@redacted.invalid', limit: 100 },
        // Empty values filter nothing, as in memory.
        { status: '' as TicketStatus, text: '', limit: 3 },
      ];
      for (const filter of filters) expect(await b.tickets.search(filter)).toEqual(await memory.tickets.search(filter));
      const found = async (filter: TicketFilter) => (await b.tickets.search(filter)).map((ticket) => ticket.id);
      expect(await found({ text: 'contoso.example', limit: 100 })).toEqual([]);
      expect(await found({ text: 'contoso.example', emails: true, limit: 100 })).toContain('T-2010');
      expect(await found({ text: 'reply to redacted@redacted.invalid', limit: 100 })).toContain('T-2010');
      expect(await a.tickets.openCount('C-1002')).toBe(await memory.tickets.openCount('C-1002'));

      // The same instants; PostgreSQL gives every time with its milliseconds.
      const customers = await a.customers.search({ limit: 50 });
      expect(customers).toEqual(
        SEED_CUSTOMERS.map((customer) => ({ ...customer, createdAt: new Date(customer.createdAt).toISOString() })),
      );
      for (const filter of [
        { query: 'CONTOSO', limit: 10 },
        { query: '@wingtip.', limit: 10 },
        { query: '@wingtip.', emails: true, limit: 10 },
        { tier: 'premium', limit: 2 },
      ] as const) {
        const ids = async (store: typeof memory.customers | PostgresCustomersStore) =>
          (await store.search(filter)).map((customer) => customer.id);
        expect(await ids(b.customers)).toEqual(await ids(memory.customers));
      }
      expect((await b.customers.search({ query: '@wingtip.', limit: 10 })).length).toBe(0);
      expect((await b.customers.search({ query: '@wingtip.', emails: true, limit: 10 })).map((c) => c.id)).toEqual([
        'C-1005',
      ]);
      expect(await b.customers.find('C-9999')).toBeUndefined();
    });

    it("see each other's writes: created on one, read, changed and commented on through the other", async () => {
      const created = await a.tickets.create(NEW_TICKET);
      expect(created).toMatchObject({ ...NEW_TICKET, id: expect.stringMatching(/^T-\d+$/), status: 'open' });
      expect(await b.tickets.get(created.id)).toEqual(created);

      const changed = await b.tickets.update(created.id, { assignee: 'sara.kim', status: 'pending' });
      expect(changed).toMatchObject({ assignee: 'sara.kim', status: 'pending', priority: 'high' });
      expect(await a.tickets.find(created.id)).toEqual(changed);

      const commented = await a.tickets.addComment(created.id, 'sara.kim', 'Asked for a HAR file.');
      expect(commented).toMatchObject({
        status: 'open',
        comments: [{ author: 'sara.kim', body: 'Asked for a HAR file.' }],
      });
      expect(Object.keys(commented.comments[0])).toEqual(['author', 'body', 'at']);
      expect(await b.tickets.get(created.id)).toEqual(commented);
      expect(await b.tickets.search({ assignee: 'sara.kim', text: 'BLANK SCREEN', limit: 10 })).toEqual([commented]);

      const unassigned = await b.tickets.update(created.id, { assignee: null });
      expect((await a.tickets.get(created.id)).assignee).toBeNull();
      expect(unassigned.updatedAt >= commented.updatedAt).toBe(true);

      expect(await b.tickets.remove(created.id)).toEqual(unassigned);
      await expect(a.tickets.get(created.id)).rejects.toThrow(new TicketNotFoundError(created.id));
    });

    it('give distinct ids, in the same format, to tickets created at the same time on both', async () => {
      const created = await Promise.all(
        Array.from({ length: 40 }, (_, i) => (i % 2 ? a : b).tickets.create({ ...NEW_TICKET, subject: `Ticket ${i}` })),
      );
      const ids = created.map((ticket) => ticket.id);
      expect(new Set(ids).size).toBe(40);
      for (const id of ids) expect(id).toMatch(/^T-\d+$/);
      expect(Math.min(...ids.map((id) => Number(id.slice(2))))).toBeGreaterThan(2020);
      const listed = (await a.tickets.search({ text: 'Ticket ', limit: 100 })).map((ticket) => ticket.id);
      expect([...listed].sort()).toEqual([...ids].sort());
      // Oldest first: in number order, as in memory.
      expect(listed).toEqual([...listed].sort((x, y) => Number(x.slice(2)) - Number(y.slice(2))));
    });

    it('refuse to change, comment on or close again a ticket the other one closed', async () => {
      const { id } = await a.tickets.create(NEW_TICKET);
      const seenOpen = await b.tickets.get(id);
      expect(seenOpen.status).toBe('open');
      await a.tickets.closeOpen(id, 'Cleared the CDN cache.');

      await expect(b.tickets.update(id, { priority: 'low' })).rejects.toThrow(new TicketClosedError(id, 'changed'));
      await expect(b.tickets.update(id, { priority: 'low' })).rejects.toBeInstanceOf(TicketClosedError);
      await expect(b.tickets.addComment(id, 'tom.becker', 'Still broken?')).rejects.toThrow(
        new TicketClosedError(id, 'commented on'),
      );
      await expect(b.tickets.closeOpen(id, 'Another resolution.')).rejects.toThrow(
        new TicketClosedError(id, 'closed again'),
      );
      expect(await a.tickets.get(id)).toMatchObject({
        status: 'closed',
        priority: 'high',
        resolution: 'Cleared the CDN cache.',
        comments: [],
      });
      for (const attempt of [
        () => b.tickets.update('T-99999', { priority: 'low' }),
        () => b.tickets.addComment('T-99999', 'tom.becker', 'Hello?'),
        () => b.tickets.closeOpen('T-99999', 'Nothing.'),
        () => b.tickets.remove('T-99999'),
      ]) {
        await expect(attempt()).rejects.toThrow(new TicketNotFoundError('T-99999'));
      }
    });

    it('let exactly one of two simultaneous closes win', async () => {
      for (let round = 0; round < 5; round++) {
        const { id } = await a.tickets.create(NEW_TICKET);
        const outcomes = await Promise.allSettled([
          a.tickets.closeOpen(id, 'Closed by replica A.'),
          b.tickets.closeOpen(id, 'Closed by replica B.'),
        ]);
        const won = outcomes.filter((outcome) => outcome.status === 'fulfilled');
        const lost = outcomes.filter((outcome) => outcome.status === 'rejected');
        expect([won.length, lost.length]).toEqual([1, 1]);
        expect((lost[0] as PromiseRejectedResult).reason).toBeInstanceOf(TicketClosedError);
        expect((await b.tickets.get(id)).resolution).toBe(
          (won[0] as PromiseFulfilledResult<{ resolution: string }>).value.resolution,
        );
      }
    });
  });

  describe('two desk applications on one DATABASE_URL', () => {
    let url: string;
    let hostA: DeskHost;
    let hostB: DeskHost;
    let clientA: Client;
    let clientB: Client;
    let running = false;

    beforeAll(async () => {
      url = await freshDatabase('desk_apps');
      const saved = { ...process.env };
      try {
        [hostA, hostB] = await Promise.all([
          startDeskHost({ DATABASE_URL: url, AUTH_MODE: 'none', THROTTLE_LIMIT: '10000' }),
          startDeskHost({ DATABASE_URL: url, AUTH_MODE: 'none', THROTTLE_LIMIT: '10000' }),
        ]);
      } finally {
        // Two start-ups at once each put back the environment they found: restore the one from before both.
        process.env = saved;
      }
      running = true;
      [clientA, clientB] = await Promise.all([connectHttpClient(hostA.url), connectHttpClient(hostB.url)]);
    }, 60_000);
    afterAll(() => (running ? stop() : undefined));

    async function stop(): Promise<void> {
      running = false;
      await Promise.all([clientA?.close(), clientB?.close()]);
      await Promise.all([hostA?.close(), hostB?.close()]);
    }

    it('seeded the tables once, though both started together', async () => {
      expect(
        await queryOn(
          url,
          `SELECT (SELECT count(*)::int FROM desk_customers) AS customers, (SELECT count(*)::int FROM desk_tickets) AS tickets`,
        ),
      ).toEqual([{ customers: 8, tickets: 20 }]);
    });

    it('serve a ticket opened through one to the tools and the REST API of the other', async () => {
      const created = (await clientA.callTool({ name: 'create_ticket', arguments: NEW_TICKET })).structuredContent as {
        id: string;
      };
      expect(created).toEqual({ id: 'T-2021', status: 'open' });

      const read = await rest(hostB.base, 'GET', `/api/tickets/${created.id}`);
      expect(read).toMatchObject({ status: 200, body: { ...NEW_TICKET, id: 'T-2021', assignee: null } });

      const patched = await rest(hostB.base, 'PATCH', `/api/tickets/${created.id}`, {
        assignee: 'maria.lopez',
        status: 'pending',
      });
      expect(patched).toMatchObject({ status: 200, body: { assignee: 'maria.lopez', status: 'pending' } });
      const viaTool = await clientA.callTool({ name: 'get_ticket', arguments: { ticketId: created.id } });
      expect(viaTool.structuredContent).toMatchObject({ assignee: 'maria.lopez', status: 'pending' });

      const commented = await clientB.callTool({
        name: 'add_ticket_comment',
        arguments: { ticketId: created.id, author: 'maria.lopez', body: 'Reproduced on Firefox.' },
      });
      expect(commented.structuredContent).toEqual({ id: created.id, status: 'open', comments: 1 });
      const customer = await rest(hostA.base, 'GET', '/api/customers/C-1004');
      const open = await rest(hostB.base, 'GET', '/api/tickets?customerId=C-1004&status=open&limit=100');
      expect(customer.body!.openTickets).toBe(open.body!.count);
      expect(open.body!.tickets).toContainEqual(expect.objectContaining({ id: created.id }));
    });

    it('refuse, on the other, a change to a ticket one of them closed', async () => {
      const created = await rest(hostB.base, 'POST', '/api/tickets', NEW_TICKET);
      expect(created.status).toBe(201);
      const id = created.body!.id as string;
      const closed = await rest(hostA.base, 'POST', `/api/tickets/${id}/close`, { resolution: 'Rolled back 4.2.1.' });
      expect(closed).toMatchObject({ status: 200, body: { status: 'closed', resolution: 'Rolled back 4.2.1.' } });

      expect(await rest(hostB.base, 'PATCH', `/api/tickets/${id}`, { priority: 'low' })).toEqual({
        status: 409,
        body: {
          statusCode: 409,
          error: 'TicketClosed',
          message: `Ticket ${id} is closed and cannot be changed; open a new ticket instead.`,
          ticketId: id,
        },
      });
      const comment = (await clientB.callTool({
        name: 'add_ticket_comment',
        arguments: { ticketId: id, author: 'tom.becker', body: 'Any news on this one?' },
      })) as CallToolResult;
      expect(comment.isError).toBe(true);
      expect(comment.content).toEqual([
        { type: 'text', text: `Ticket ${id} is closed; open a new ticket instead of commenting.` },
      ]);
    });

    it('close their pools when they shut down', async () => {
      const connections = `SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = 'desk_apps' AND pid <> pg_backend_pid()`;
      expect((await queryOn<{ n: number }>(url, connections))[0].n).toBeGreaterThan(1);
      await stop();
      // A backend leaves pg_stat_activity a moment after its client hung up.
      await waitForAsync(async () => (await queryOn<{ n: number }>(url, connections))[0].n === 0);
    });
  });

  describe('the audit trail in a database of its own (AUDIT_DATABASE_URL)', () => {
    const tables = (url: string) =>
      queryOn<{ name: string }>(
        url,
        `SELECT table_name AS name FROM information_schema.tables WHERE table_schema = 'public' ORDER BY table_name`,
      ).then((rows) => rows.map(({ name }) => name));

    it("keeps the desk's data in DATABASE_URL and its audit records in AUDIT_DATABASE_URL, and neither in the other", async () => {
      const [data, audit] = [await freshDatabase('desk_data'), await freshDatabase('desk_audit')];
      const host = await startDeskHost({
        DATABASE_URL: data,
        AUDIT_DATABASE_URL: audit,
        AUDIT_SINK: 'postgres',
        AUTH_MODE: 'none',
      });
      try {
        const client = await connectHttpClient(host.url);
        try {
          const created = (await client.callTool({ name: 'create_ticket', arguments: NEW_TICKET }))
            .structuredContent as { id: string };
          expect(created).toEqual({ id: 'T-2021', status: 'open' });
        } finally {
          await client.close();
        }
        const recorded = `SELECT outcome, target FROM mcp_audit_records WHERE method = 'tools/call'`;
        await waitForAsync(async () => (await queryOn(audit, recorded)).length > 0);
        expect(await queryOn(audit, recorded)).toEqual([{ outcome: 'ok', target: 'create_ticket' }]);
        expect(await queryOn(data, `SELECT id FROM desk_tickets WHERE id = 'T-2021'`)).toEqual([{ id: 'T-2021' }]);
        // Each database holds only its own tables.
        expect((await tables(data)).filter((name) => name.startsWith('mcp_audit'))).toEqual([]);
        expect((await tables(audit)).filter((name) => name.startsWith('desk_'))).toEqual([]);
      } finally {
        await host.close();
      }
    }, 30_000);
  });
});
