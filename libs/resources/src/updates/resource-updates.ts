import { Inject } from '@nestjs/common';

/**
 * How the word that a resource changed reaches the clients subscribed to it, wherever their
 * streams are held: one replica tells its own listeners (`LocalResourceUpdates`); with the
 * `cluster` option the cluster's tells every replica, each its own.
 */
export interface ResourceUpdates {
  /** Tells every replica (this one too) that the resource at `uri` changed. */
  publish(uri: string): void;
  /** Calls `listener` with each URI published, on whichever replica; returns how to stop. */
  onUpdated(listener: (uri: string) => void): () => void;
}

/** Token of the `ResourceUpdates` (the hosting module provides the one its options ask for). */
export const MCP_RESOURCE_UPDATES = Symbol('MCP:RESOURCE_UPDATES');

/** Injects the `ResourceUpdates`. */
export const InjectResourceUpdates = () => Inject(MCP_RESOURCE_UPDATES);
