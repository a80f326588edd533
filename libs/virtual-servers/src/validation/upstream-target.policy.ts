import { OutboundError, type OutboundPolicy } from '#libs/security';

/** A problem of a URL, and its fix when it has one of its own (an option that would allow it). */
export interface TargetProblem {
  readonly problem: string;
  readonly fix?: string;
}

/**
 * What is wrong with a URL an administrator gives at run time (an upstream's, an API's document
 * or base URL, a token endpoint): nothing, `[]`. An upstream is reached by the host itself, with
 * its own credentials, from inside its network: `reach` (`OutboundPolicies.runTime`) says which
 * addresses it may be at, and every address the URL's host resolves to now is checked, for a
 * clear error before anything is stored. The check that counts is made again at every connection
 * (a name that resolves elsewhere later is refused then).
 */
export async function upstreamTargetProblems(given: string, reach: OutboundPolicy): Promise<TargetProblem[]> {
  let url: URL;
  try {
    url = new URL(given);
  } catch {
    return [{ problem: `"${given}" is not a URL` }];
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:')
    return [{ problem: `use an http(s) URL (got ${url.protocol})` }];
  if (url.username || url.password)
    return [{ problem: 'put credentials in transport.bearer or transport.headers, not in the URL' }];
  try {
    const refusal = await reach.refusalOf(url);
    return refusal ? [{ problem: refusal.problem, fix: refusal.fix }] : [];
  } catch (error) {
    if (error instanceof OutboundError) return [{ problem: error.message }];
    throw error;
  }
}
