import type { OptionReport } from '#libs/core';
import type { OutboundPolicy } from '#libs/security';
import { upstreamTargetProblems } from './upstream-target.policy';

/** What validating run-time APIs needs of the REST bridge (`RestApiLoader`). @internal */
export interface RestApis {
  /** The names of the `rest.apis` option's APIs. */
  readonly fixedNames: ReadonlySet<string>;
  /** Validates APIs as `rest.apis` is validated (reported as `rest.apis[i]…`). */
  resolveApis(given: unknown, report: OptionReport): unknown[];
}

/**
 * Validates the REST APIs of a document, every problem at once: each as `rest.apis` is
 * validated, and what only run time asks: its document at an http(s) URL (an admin API does not
 * read the host's files), fetched and called at addresses the target policy allows, as the host
 * (`credential: 'service'`), under a name of its own.
 * @returns the names of the APIs given
 */
export async function validateApis(
  list: unknown,
  rest: RestApis | undefined,
  policy: OutboundPolicy,
  report: OptionReport,
): Promise<string[]> {
  if (list === undefined) return [];
  if (!rest) {
    report('apis', 'cannot be served: this host has no REST bridge', 'remove them');
    return [];
  }
  rest.resolveApis(list, (where, problem, fix) => report(where.replace(/^rest\.apis/, 'apis'), problem, fix));
  if (!Array.isArray(list)) return [];
  const names: string[] = [];
  // One after the other: the problems come in the document's order.
  for (const [index, given] of (list as Record<string, unknown>[]).entries()) {
    const where = `apis[${index}]`;
    if (typeof given !== 'object' || given === null) continue;
    if (typeof given.name === 'string') {
      names.push(given.name);
      if (rest.fixedNames.has(given.name))
        report(`${where}.name`, `"${given.name}" is an API of the rest option`, 'give it another name');
    }
    if (typeof given.document === 'string' && !/^https?:\/\//i.test(given.document))
      report(
        `${where}.document`,
        'must be an http(s) URL at run time (an admin API does not read the host’s files)',
        'serve the OpenAPI document over http(s), or put the API in the rest option',
      );
    if (given.credential !== undefined && given.credential !== 'service')
      report(
        `${where}.credential`,
        'only the host’s own credentials (service) can be given at run time',
        'leave credential out, or put the API in the rest option',
      );
    for (const field of ['document', 'baseUrl'] as const) {
      const url = given[field];
      if (typeof url !== 'string' || !/^https?:\/\//i.test(url)) continue;
      for (const { problem, fix } of await upstreamTargetProblems(url, policy))
        report(`${where}.${field}`, problem, fix ?? 'point it at the API');
    }
  }
  return names;
}
