import { CustomersStore, summarizeCustomer } from './customers.store';
import { CustomerNotFoundError } from './errors/customer-not-found.error';

describe('CustomersStore', () => {
  let store: CustomersStore;
  beforeEach(() => (store = new CustomersStore()));

  it('finds a customer by id, and nothing for an unknown id', () => {
    expect(store.find('C-1002')).toMatchObject({ name: 'Bruno Costa', company: 'Contoso Ltd', tier: 'premium' });
    expect(store.find('C-9999')).toBeUndefined();
  });

  it('matches the query against name, email and company, case-insensitively', () => {
    const ids = (query: string) => store.search({ query, limit: 50 }).map((customer) => customer.id);
    expect(ids('CONTOSO')).toEqual(['C-1002']); // company
    expect(ids('hana')).toEqual(['C-1008']); // name
    expect(ids('@wingtip.')).toEqual(['C-1005']); // email
    expect(ids('nobody-by-this-name')).toEqual([]);
  });

  it('filters by tier and stops at the limit', () => {
    expect(store.search({ tier: 'enterprise', limit: 50 }).map((customer) => customer.id)).toEqual([
      'C-1001',
      'C-1006',
    ]);
    expect(store.search({ limit: 50 })).toHaveLength(8);
    expect(store.search({ limit: 3 }).map((customer) => customer.id)).toEqual(['C-1001', 'C-1002', 'C-1003']);
  });

  it('keeps each store instance independent of the seed data', () => {
    store.find('C-1001')!.tier = 'standard';
    expect(new CustomersStore().find('C-1001')!.tier).toBe('enterprise');
  });

  it('gets a customer or throws CustomerNotFoundError, and summarizes one for lists', () => {
    expect(summarizeCustomer(store.get('C-1002'))).toEqual({
      id: 'C-1002',
      name: 'Bruno Costa',
      company: 'Contoso Ltd',
      tier: 'premium',
    });
    expect(() => store.get('C-9999')).toThrow(new CustomerNotFoundError('C-9999'));
  });
});
