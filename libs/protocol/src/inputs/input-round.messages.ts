const START_OVER = 'send the request again without "requestState" and "inputResponses" to start over';

/** Protocol errors of multi round-trip requests, each saying how to correct the request. */
export const InputRoundMessages = {
  responsesNotObject: () =>
    'Invalid params: "inputResponses" must be an object mapping the keys of "inputRequests" to the client\'s results',
  stateNotString: () => 'Invalid params: "requestState" must be the string of the last InputRequiredResult, unchanged',
  stateAltered: () =>
    'Invalid params: "requestState" failed its integrity check: it was altered, or sealed by a host with another ' +
    `requestState secret; ${START_OVER}`,
  stateExpired: (ttlMs: number) =>
    `Invalid params: "requestState" expired (it is accepted for ${Math.round(ttlMs / 1000)} s after the input was requested); ${START_OVER}`,
  stateOfOtherPrincipal: () => `Invalid params: "requestState" was issued to another caller; ${START_OVER}`,
  stateOfOtherRequest: () =>
    'Invalid params: "requestState" was issued for another request: send it with the method, name and arguments ' +
    `of the request that received it, or ${START_OVER}`,
  invalidResponse: (key: string, problem: string) => `Invalid params: "inputResponses.${key}" ${problem}`,
  callerOf: (method: string, target: string) => `${method} "${target}"`,
  /** What a request of a run that was stopped gets (the request was answered without that run's result). */
  abandoned: (what: string) =>
    `${what} was not answered: this run was stopped, and the request answered without its result ` +
    '(an InputRequiredResult runs it again when the client brings the input)',
} as const;
