import type { RemoteResume, SharedStreams } from './shared-streams';

/** The streams of one replica: each is kept where it was opened, and no other replica has one. */
export class LocalStreams implements SharedStreams {
  opened(): void {}

  async resume(): Promise<RemoteResume> {
    return 'unknown';
  }
}
