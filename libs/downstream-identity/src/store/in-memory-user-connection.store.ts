import { InMemoryExpiringStore } from '#libs/core';
import type { UserConnectionStore } from './user-connection.store';

/**
 * Connected accounts in this process: one replica, or tests. They are gone when it stops.
 * @example
 * { provide: MCP_USER_CONNECTION_STORE, useValue: new InMemoryUserConnectionStore() }
 */
export class InMemoryUserConnectionStore extends InMemoryExpiringStore implements UserConnectionStore {}
