import { TicketClosedError } from './errors/ticket-closed.error';
import { TicketNotFoundError } from './errors/ticket-not-found.error';
import { InMemoryTicketsStore } from './in-memory-tickets.store';
import type { TicketsStore } from './tickets.store';

describe('TicketsStore (in memory)', () => {
  let store: TicketsStore;
  beforeEach(() => (store = new InMemoryTicketsStore()));

  it('filters by status, customer and text, up to the limit', async () => {
    const open = await store.search({ status: 'open', limit: 100 });
    expect(open.length).toBeGreaterThan(0);
    expect(open.every((ticket) => ticket.status === 'open')).toBe(true);
    expect(
      (await store.search({ customerId: 'C-1001', limit: 100 })).every((ticket) => ticket.customerId === 'C-1001'),
    ).toBe(true);
    expect((await store.search({ text: 'VAT', limit: 100 })).map((ticket) => ticket.subject)).toEqual([
      'Invoice shows wrong VAT rate',
      'Invoice shows wrong VAT rate',
    ]);
    expect(await store.search({ limit: 3 })).toHaveLength(3);
  });

  it('filters by whether an agent is assigned', async () => {
    const store = new InMemoryTicketsStore();
    const unassigned = await store.search({ unassigned: true, limit: 100 });
    const assigned = await store.search({ unassigned: false, limit: 100 });
    expect(unassigned.length).toBeGreaterThan(0);
    expect(unassigned.every((ticket) => ticket.assignee === null)).toBe(true);
    expect(assigned.every((ticket) => ticket.assignee !== null)).toBe(true);
    expect(unassigned.length + assigned.length).toBe((await store.all()).length);
  });

  it('numbers new tickets after the seeded ones and opens them unassigned', async () => {
    const ticket = await store.create({
      customerId: 'C-1003',
      subject: 'Help',
      description: 'Need help quickly',
      priority: 'high',
    });
    expect(ticket).toMatchObject({ id: 'T-2021', status: 'open', assignee: null, comments: [] });
    expect(await store.find('T-2021')).toEqual(ticket);
  });

  it('reopens a pending ticket on comment and records the resolution on close', async () => {
    const [pending] = await store.search({ status: 'pending', limit: 1 });
    const commented = await store.addComment(pending.id, 'sara.kim', 'Customer answered');
    expect(commented.status).toBe('open');
    expect(commented.comments.at(-1)).toMatchObject({ author: 'sara.kim', body: 'Customer answered' });
    await store.closeOpen(pending.id, 'Fixed the mapping');
    expect(await store.find(pending.id)).toMatchObject({ status: 'closed', resolution: 'Fixed the mapping' });
    await expect(store.addComment(pending.id, 'sara.kim', 'Too late')).rejects.toThrow(
      new TicketClosedError(pending.id, 'commented on'),
    );
    await expect(store.addComment('T-9999', 'sara.kim', 'Anyone?')).rejects.toThrow(TicketNotFoundError);
  });

  it('keeps each store instance independent of the seed data', async () => {
    await store.closeOpen('T-2001', 'done');
    expect((await new InMemoryTicketsStore().find('T-2001'))!.status).not.toBe('closed');
  });

  it('hands out copies: changing a returned ticket changes nothing stored', async () => {
    const ticket = (await store.find('T-2001'))!;
    ticket.status = 'closed';
    ticket.comments.push({ author: 'x', body: 'y', at: 'z' });
    expect(await store.find('T-2001')).toMatchObject({ status: 'open', comments: [{ author: 'maria.lopez' }] });
  });

  it('gets a ticket or throws TicketNotFoundError', async () => {
    expect((await store.get('T-2001')).id).toBe('T-2001');
    await expect(store.get('T-9999')).rejects.toThrow(new TicketNotFoundError('T-9999'));
    await expect(store.get('T-9999')).rejects.toThrow(expect.objectContaining({ code: 'TicketNotFound' }));
  });

  it('updates only the fields given, unassigns with null, and refuses to change a closed ticket', async () => {
    const { id } = await store.create({
      customerId: 'C-1001',
      subject: 'Login fails',
      description: 'x'.repeat(20),
      priority: 'low',
    });
    expect(await store.update(id, { assignee: 'maria.lopez', status: 'pending' })).toMatchObject({
      assignee: 'maria.lopez',
      status: 'pending',
      priority: 'low',
      subject: 'Login fails',
    });
    const updated = await store.update(id, { assignee: null, priority: 'high', id: 'T-1' } as never);
    expect(updated).toMatchObject({ id, assignee: null, priority: 'high', status: 'pending' });
    expect(await store.find('T-1')).toBeUndefined();
    await store.closeOpen(id, 'Reset the password.');
    await expect(store.update(id, { priority: 'low' })).rejects.toThrow(new TicketClosedError(id, 'changed'));
    expect((await store.get(id)).priority).toBe('high');
    await expect(store.update('T-9999', { priority: 'low' })).rejects.toThrow(new TicketNotFoundError('T-9999'));
  });

  it('closes an open ticket once (closeOpen) and deletes a ticket for good', async () => {
    await store.closeOpen('T-2001', 'Fixed.');
    await expect(store.closeOpen('T-2001', 'Again.')).rejects.toThrow(new TicketClosedError('T-2001', 'closed again'));
    expect((await store.get('T-2001')).resolution).toBe('Fixed.');
    expect((await store.remove('T-2001')).id).toBe('T-2001');
    expect(await store.find('T-2001')).toBeUndefined();
    await expect(store.remove('T-2001')).rejects.toThrow(TicketNotFoundError);
    await expect(store.closeOpen('T-2001', 'Gone.')).rejects.toThrow(TicketNotFoundError);
  });

  it("counts a customer's open tickets", async () => {
    const before = await store.openCount('C-1001');
    expect(before).toBe((await store.search({ customerId: 'C-1001', status: 'open', limit: 1000 })).length);
    await store.create({ customerId: 'C-1001', subject: 'Another one', description: 'x'.repeat(20), priority: 'low' });
    expect(await store.openCount('C-1001')).toBe(before + 1);
  });
});
