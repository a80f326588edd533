/**
 * How the bridge authenticates to an external REST API. Each part that is set is sent with every
 * request to that API (and never to another origin: cross-origin redirects are refused).
 *
 * @example
 * ```ts
 * const credentials: RestRemoteCredentials = {
 *   apiKey: { in: 'header', name: 'x-api-key', value: process.env.PETSTORE_KEY! },
 * };
 * ```
 */
export interface RestRemoteCredentials {
  /** Extra headers, sent as they are. */
  readonly headers?: Readonly<Record<string, string>>;
  /** Sent as `authorization: Bearer <token>`. */
  readonly bearer?: string;
  /** Sent as `authorization: Basic <base64(username:password)>`. */
  readonly basic?: { readonly username: string; readonly password: string };
  /** An API key in a header or in the query string. */
  readonly apiKey?: { readonly in: 'header' | 'query'; readonly name: string; readonly value: string };
}

/**
 * Adds the credentials to a request's headers and URL. They override a tool argument of the same
 * name: the model never chooses the identity the bridge calls with.
 */
export function applyCredentials(
  credentials: RestRemoteCredentials | undefined,
  headers: Record<string, string>,
  url: URL,
): void {
  if (!credentials) return;
  for (const [name, value] of Object.entries(credentials.headers ?? {})) headers[name.toLowerCase()] = value;
  if (credentials.basic) {
    const { username, password } = credentials.basic;
    headers.authorization = `Basic ${Buffer.from(`${username}:${password}`, 'utf8').toString('base64')}`;
  }
  if (credentials.bearer !== undefined) headers.authorization = `Bearer ${credentials.bearer}`;
  const apiKey = credentials.apiKey;
  if (apiKey?.in === 'header') headers[apiKey.name.toLowerCase()] = apiKey.value;
  else if (apiKey?.in === 'query') url.searchParams.set(apiKey.name, apiKey.value);
}
