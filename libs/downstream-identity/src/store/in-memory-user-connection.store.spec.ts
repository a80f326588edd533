import { userConnectionStoreContract } from '../testing/user-connection-store.contract';
import { InMemoryUserConnectionStore } from './in-memory-user-connection.store';

describe('InMemoryUserConnectionStore', () => {
  userConnectionStoreContract(() => new InMemoryUserConnectionStore());
});
