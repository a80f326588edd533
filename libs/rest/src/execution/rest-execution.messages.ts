/** Messages of the REST bridge's execution: what went wrong, in words the caller or the log reader can act on. */
export const RestExecutionMessages = {
  badHeader: (name: string, reason: string) => `Header "${name}" cannot be sent: ${reason}`,
  badBaseUrl: (baseUrl: string) =>
    `The base URL "${baseUrl}" of the REST API is not an absolute http(s) URL; configure one such as "https://api.example.com/v1".`,
  timedOut: (method: string, url: string, ms: number) =>
    `${method} ${url} got no complete answer within ${ms} ms; the request was abandoned.`,
  unreachable: (method: string, url: string, reason: string) => `${method} ${url} failed: ${reason}`,
  crossOriginRedirect: (method: string, url: string, location: string) =>
    `${method} ${url} redirected to another origin (${location}); the REST bridge follows same-origin redirects only, so the credentials never leave the configured API.`,
  tooManyRedirects: (method: string, url: string, max: number) =>
    `${method} ${url} redirected more than ${max} times; the request was abandoned.`,
  tooLarge: (method: string, url: string, limit: number) =>
    `${method} ${url} answered with a body over ${limit} bytes (maxResponseBytes); the request was abandoned.`,
  upstreamFailed: (label: string, status: number, body: string) =>
    `REST operation ${label} answered ${status}${body ? `: ${body}` : ''}`,
} as const;
