import type { DownstreamCredential } from './downstream-credential.options';

/** A gateway upstream or a `rest.apis` API the host calls, and how it authenticates there. */
export interface DownstreamTarget {
  kind: 'upstream' | 'api';
  name: string;
  credential: DownstreamCredential;
}

/** How audit records and connections name a target: `upstream wiki`, `api crm`. */
export function targetId(target: Pick<DownstreamTarget, 'kind' | 'name'>): string {
  return `${target.kind} ${target.name}`;
}
