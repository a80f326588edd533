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
});
