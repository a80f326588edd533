/** What the cluster layer says (start-up and failures name the engine, never its URL's password). */
export const ClusterMessages = {
  unavailable: (what: string) => `The shared state of the host's replicas (${what}) cannot be reached; retry shortly.`,
  connectFailed: (reason: string) =>
    `Cannot reach the cluster backplane: ${reason}. Check REDIS_URL (or the backplane given to the cluster option) and that the server is up.`,
} as const;
