import { InMemoryExpiringStore } from '#libs/core';
import type { AuthorizationServerStore } from './authorization-server.store';

/** The authorization server's state in this process: one replica, or tests. */
export class InMemoryAuthorizationServerStore extends InMemoryExpiringStore implements AuthorizationServerStore {}
