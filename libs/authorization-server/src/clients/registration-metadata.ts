import { OAuthError } from '../errors/oauth-error';
import { redirectUriProblem } from '../client-rules/redirect-uris';

/** The largest registration request body read (bytes), whatever the HTTP platform parsed. */
export const REGISTRATION_BODY_BYTES = 16 * 1024;
/** The most redirect URIs one registration may declare. */
export const MAX_REDIRECT_URIS = 10;
/** The longest `client_name` (characters). */
export const MAX_CLIENT_NAME_LENGTH = 200;

const AUTH_METHODS = ['none', 'client_secret_basic', 'client_secret_post'] as const;

/** Control and bidirectional formatting characters: a name that hides or reorders what a person reads. */
const HIDDEN_CHARACTERS = /[\p{Cc}\u200b-\u200f\u202a-\u202e\u2060-\u2069\ufeff]/u;

/** What the authorization server keeps of an RFC 7591 registration request. */
export interface RegistrationRequest {
  redirectUris: string[];
  method: (typeof AUTH_METHODS)[number];
  name?: string;
}

/**
 * The metadata of an RFC 7591 registration request, checked: 1 to 10 redirect URIs, each one a
 * client may use (`redirectUriProblem`); a supported `token_endpoint_auth_method`; a `client_name`
 * of at most 200 characters with nothing hidden in it. What else the client sent is not kept.
 * @throws OAuthError `invalid_redirect_uri` or `invalid_client_metadata`, naming the field and what was expected
 */
export function readRegistration(metadata: Record<string, unknown>): RegistrationRequest {
  const redirectUris = metadata.redirect_uris;
  if (!Array.isArray(redirectUris) || redirectUris.length === 0)
    throw new OAuthError('invalid_redirect_uri', 'redirect_uris must list the URIs the client receives its codes at');
  if (redirectUris.length > MAX_REDIRECT_URIS)
    throw new OAuthError(
      'invalid_redirect_uri',
      `redirect_uris lists ${redirectUris.length} URIs: at most ${MAX_REDIRECT_URIS} are kept`,
    );
  redirectUris.forEach((uri, index) => {
    const problem = redirectUriProblem(uri);
    if (problem)
      throw new OAuthError('invalid_redirect_uri', `redirect_uris[${index}] ${JSON.stringify(uri)} ${problem}`);
  });
  const method = metadata.token_endpoint_auth_method ?? 'client_secret_basic';
  if (!AUTH_METHODS.includes(method as never))
    throw new OAuthError(
      'invalid_client_metadata',
      `token_endpoint_auth_method ${JSON.stringify(method)} is not supported (${AUTH_METHODS.join(', ')})`,
    );
  const name = metadata.client_name;
  if (name !== undefined) {
    if (typeof name !== 'string' || !name.trim())
      throw new OAuthError('invalid_client_metadata', 'client_name must be a non-empty string');
    if (name.length > MAX_CLIENT_NAME_LENGTH)
      throw new OAuthError(
        'invalid_client_metadata',
        `client_name is longer than ${MAX_CLIENT_NAME_LENGTH} characters`,
      );
    if (HIDDEN_CHARACTERS.test(name))
      throw new OAuthError(
        'invalid_client_metadata',
        'client_name must not contain control or bidirectional formatting characters',
      );
  }
  return {
    redirectUris: redirectUris as string[],
    method: method as RegistrationRequest['method'],
    ...(typeof name === 'string' && { name }),
  };
}
