import { type CustomersStore, summarizeCustomer } from './customers.store';
import { CustomerNotFoundError } from './errors/customer-not-found.error';
import { InMemoryCustomersStore } from './in-memory-customers.store';

describe('CustomersStore (in memory)', () => {
  let store: CustomersStore;
  beforeEach(() => (store = new InMemoryCustomersStore()));

  it('finds a customer by id, and nothing for an unknown id', async () => {
    expect(await store.find('C-1002')).toMatchObject({ name: 'Bruno Costa', company: 'Contoso Ltd', tier: 'premium' });
    expect(await store.find('C-9999')).toBeUndefined();
  });

  it('matches the query against name and company (and email when asked), case-insensitively', async () => {
    const ids = async (query: string, emails?: boolean) =>
      (await store.search({ query, emails, limit: 50 })).map((customer) => customer.id);
    expect(await ids('CONTOSO')).toEqual(['C-1002']); // company
    expect(await ids('hana')).toEqual(['C-1008']); // name
    expect(await ids('@wingtip.', true)).toEqual(['C-1005']); // email
    expect(await ids('@wingtip.')).toEqual([]); // not without `emails`
    expect(await ids('nobody-by-this-name', true)).toEqual([]);
  });

  it('filters by tier and stops at the limit', async () => {
    expect((await store.search({ tier: 'enterprise', limit: 50 })).map((customer) => customer.id)).toEqual([
      'C-1001',
      'C-1006',
    ]);
    expect(await store.search({ limit: 50 })).toHaveLength(8);
    expect((await store.search({ limit: 3 })).map((customer) => customer.id)).toEqual(['C-1001', 'C-1002', 'C-1003']);
  });

  it('keeps each store instance independent of the seed data, and hands out copies', async () => {
    (await store.find('C-1001'))!.tier = 'standard';
    expect((await store.find('C-1001'))!.tier).toBe('enterprise');
    expect((await new InMemoryCustomersStore().find('C-1001'))!.tier).toBe('enterprise');
  });

  it('gets a customer or throws CustomerNotFoundError, and summarizes one for lists', async () => {
    expect(summarizeCustomer(await store.get('C-1002'))).toEqual({
      id: 'C-1002',
      name: 'Bruno Costa',
      company: 'Contoso Ltd',
      tier: 'premium',
    });
    await expect(store.get('C-9999')).rejects.toThrow(new CustomerNotFoundError('C-9999'));
  });
});
