import { AdminRoutes } from './admin-routes';

/** The table of a host whose admin API is off: routes are checked and listed, none mounted. */
const table = () =>
  new AdminRoutes(
    { admin: undefined, http: false } as never,
    {} as never,
    {} as never,
    {} as never,
    {} as never,
    {} as never,
  );

describe('AdminRoutes', () => {
  it('refuses at start-up a route that changes something without an action to audit it by', () => {
    expect(() =>
      table().add({ method: 'POST', path: '/api/consents/revoke', handle: () => ({ status: 200, body: {} }) }),
    ).toThrow('The admin route POST /api/consents/revoke changes something: give it an action to audit');
    expect(() =>
      table().add({ method: 'DELETE', path: '/api/clients/:id', handle: () => ({ status: 200, body: {} }) }),
    ).toThrow('give it an action to audit');
  });

  it('lists every route, each write audited, and refuses one added twice', () => {
    const routes = table();
    routes.add({ method: 'GET', path: '/api/clients', handle: () => ({ status: 200, body: [] }) });
    routes.add({
      method: 'POST',
      path: '/api/clients/:id/approve',
      action: 'admin/clients.approve',
      handle: () => ({ status: 200, body: {} }),
    });
    expect(routes.mounted).toBe(false);
    expect(routes.list()).toEqual([
      { method: 'GET', path: '/api/clients', audited: false },
      { method: 'POST', path: '/api/clients/:id/approve', audited: true },
    ]);
    expect(() =>
      routes.add({ method: 'GET', path: '/api/clients', handle: () => ({ status: 200, body: [] }) }),
    ).toThrow('The admin route GET /api/clients is added twice');
  });
});
