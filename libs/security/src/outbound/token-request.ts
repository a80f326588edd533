import { outboundFetch, type OutboundRequestOptions } from './outbound-fetch';

/** What a token endpoint answered: its status, and its JSON body (`{}` when it sent none). */
export interface TokenAnswer {
  readonly ok: boolean;
  readonly status: number;
  readonly body: Record<string, unknown>;
}

/**
 * POSTs an OAuth token request to `url` through the outbound guard: the form `body`, the client
 * authenticated with HTTP Basic (`client_secret_basic`, RFC 6749 §2.3.1), bounded as `options`
 * says (its deadline, its size cap, where it may connect; no redirect followed).
 *
 * @internal for the sibling libraries
 * @example
 * ```ts
 * const { ok, body } = await tokenRequest(tokenUrl, { clientId, clientSecret }, new URLSearchParams({ grant_type: 'client_credentials' }), limits);
 * ```
 * @throws OutboundError when it gets no usable answer
 */
export async function tokenRequest(
  url: string,
  client: { readonly clientId: string; readonly clientSecret: string },
  body: URLSearchParams,
  options: OutboundRequestOptions,
): Promise<TokenAnswer> {
  const basic = Buffer.from(
    `${encodeURIComponent(client.clientId)}:${encodeURIComponent(client.clientSecret)}`,
  ).toString('base64');
  const response = await outboundFetch(
    url,
    {
      method: 'POST',
      headers: {
        authorization: `Basic ${basic}`,
        'content-type': 'application/x-www-form-urlencoded',
        accept: 'application/json',
      },
      body,
    },
    options,
  );
  const answer = (await response.json().catch(() => ({}))) as unknown;
  return {
    ok: response.ok,
    status: response.status,
    body: typeof answer === 'object' && answer !== null ? (answer as Record<string, unknown>) : {},
  };
}

/**
 * What a token endpoint's refusal says, for an error: `<refused> (<status> <error>: <error_description>)`.
 * @internal for the sibling libraries
 * @example
 * tokenRefusal('the token endpoint refused the client credentials', answer) // '… (400 invalid_scope: mcp is not granted)'
 */
export function tokenRefusal(refused: string, { status, body }: TokenAnswer): string {
  const error = typeof body.error === 'string' ? ` ${body.error}` : '';
  const description = typeof body.error_description === 'string' ? `: ${body.error_description}` : '';
  return `${refused} (${status}${error}${description})`;
}
