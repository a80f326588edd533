import type { ResourceUpdates } from './resource-updates';

/** The updates of one replica: told to its own listeners, at once. */
export class LocalResourceUpdates implements ResourceUpdates {
  private readonly listeners = new Set<(uri: string) => void>();

  publish(uri: string): void {
    for (const listener of this.listeners) listener(uri);
  }

  onUpdated(listener: (uri: string) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
}
