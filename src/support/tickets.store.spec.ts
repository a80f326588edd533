import { TicketClosedError } from './errors/ticket-closed.error';
import { TicketNotFoundError } from './errors/ticket-not-found.error';
import { TicketsStore } from './tickets.store';

describe('TicketsStore', () => {
  let store: TicketsStore;
  beforeEach(() => (store = new TicketsStore()));

  it('filters by status, customer and text, up to the limit', () => {
    const open = store.search({ status: 'open', limit: 100 });
    expect(open.length).toBeGreaterThan(0);
    expect(open.every((ticket) => ticket.status === 'open')).toBe(true);
    expect(store.search({ customerId: 'C-1001', limit: 100 }).every((ticket) => ticket.customerId === 'C-1001')).toBe(
      true,
    );
    expect(store.search({ text: 'VAT', limit: 100 }).map((ticket) => ticket.subject)).toEqual([
      'Invoice shows wrong VAT rate',
      'Invoice shows wrong VAT rate',
    ]);
    expect(store.search({ limit: 3 })).toHaveLength(3);
  });

  it('filters by whether an agent is assigned', () => {
    const store = new TicketsStore();
    const unassigned = store.search({ unassigned: true, limit: 100 });
    const assigned = store.search({ unassigned: false, limit: 100 });
    expect(unassigned.length).toBeGreaterThan(0);
    expect(unassigned.every((ticket) => ticket.assignee === null)).toBe(true);
    expect(assigned.every((ticket) => ticket.assignee !== null)).toBe(true);
    expect(unassigned.length + assigned.length).toBe(store.all().length);
  });

  it('numbers new tickets after the seeded ones and opens them unassigned', () => {
    const ticket = store.create({
      customerId: 'C-1003',
      subject: 'Help',
      description: 'Need help quickly',
      priority: 'high',
    });
    expect(ticket).toMatchObject({ id: 'T-2021', status: 'open', assignee: null, comments: [] });
    expect(store.find('T-2021')).toBe(ticket);
  });

  it('reopens a pending ticket on comment and records the resolution on close', () => {
    const pending = store.search({ status: 'pending', limit: 1 })[0];
    store.addComment(pending, 'sara.kim', 'Customer answered');
    expect(pending.status).toBe('open');
    expect(pending.comments.at(-1)).toMatchObject({ author: 'sara.kim', body: 'Customer answered' });
    store.close(pending, 'Fixed the mapping');
    expect(pending).toMatchObject({ status: 'closed', resolution: 'Fixed the mapping' });
  });

  it('keeps each store instance independent of the seed data', () => {
    store.close(store.find('T-2001')!, 'done');
    expect(new TicketsStore().find('T-2001')!.status).not.toBe('closed');
  });

  it('gets a ticket or throws TicketNotFoundError', () => {
    expect(store.get('T-2001').id).toBe('T-2001');
    expect(() => store.get('T-9999')).toThrow(new TicketNotFoundError('T-9999'));
    expect(() => store.get('T-9999')).toThrow(expect.objectContaining({ code: 'TicketNotFound' }));
  });

  it('updates only the fields given, unassigns with null, and refuses to change a closed ticket', () => {
    const ticket = store.create({
      customerId: 'C-1001',
      subject: 'Login fails',
      description: 'x'.repeat(20),
      priority: 'low',
    });
    store.update(ticket, { assignee: 'maria.lopez', status: 'pending' });
    expect(ticket).toMatchObject({
      assignee: 'maria.lopez',
      status: 'pending',
      priority: 'low',
      subject: 'Login fails',
    });
    store.update(ticket, { assignee: null, priority: 'high', id: 'T-1' } as never);
    expect(ticket).toMatchObject({ assignee: null, priority: 'high', status: 'pending' });
    expect(ticket.id).not.toBe('T-1');
    store.close(ticket, 'Reset the password.');
    expect(() => store.update(ticket, { priority: 'low' })).toThrow(TicketClosedError);
    expect(ticket.priority).toBe('high');
  });

  it('closes an open ticket once (closeOpen) and deletes a ticket for good', () => {
    const ticket = store.get('T-2001');
    store.closeOpen(ticket, 'Fixed.');
    expect(() => store.closeOpen(ticket, 'Again.')).toThrow(new TicketClosedError('T-2001', 'closed again'));
    expect(ticket.resolution).toBe('Fixed.');
    expect(store.remove('T-2001').id).toBe('T-2001');
    expect(store.find('T-2001')).toBeUndefined();
    expect(() => store.remove('T-2001')).toThrow(TicketNotFoundError);
  });

  it("counts a customer's open tickets", () => {
    const before = store.openCount('C-1001');
    expect(before).toBe(store.search({ customerId: 'C-1001', status: 'open', limit: 1000 }).length);
    store.create({ customerId: 'C-1001', subject: 'Another one', description: 'x'.repeat(20), priority: 'low' });
    expect(store.openCount('C-1001')).toBe(before + 1);
  });
});
