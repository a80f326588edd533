import { authorizationServerStoreContract } from '../testing/authorization-server-store.contract';
import { InMemoryAuthorizationServerStore } from './in-memory-authorization-server.store';

describe('InMemoryAuthorizationServerStore', () => {
  authorizationServerStoreContract(() => new InMemoryAuthorizationServerStore());
});
