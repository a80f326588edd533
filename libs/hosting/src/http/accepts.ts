/** What a client's `Accept` header takes of the two answers a POST may get. */
export interface Accepts {
  json: boolean;
  sse: boolean;
}

const BOTH: Accepts = Object.freeze({ json: true, sse: true });

/** Reads an `Accept` header (none, or a wildcard, takes both). */
export function accepts(header: string | undefined): Accepts {
  if (!header || header.includes('*/*')) return BOTH;
  return {
    json: header.includes('application/json') || header.includes('application/*'),
    sse: header.includes('text/event-stream'),
  };
}
