/** The longest redirect URI a client may declare (characters). */
export const MAX_REDIRECT_URI_LENGTH = 512;

/** Loopback hosts where a client may receive its code over plain http (a native app's listener, RFC 8252 §7.3). */
const LOOPBACK_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]']);
/** Loopback IP literals, whose redirect URIs match with any port (RFC 8252 §7.3); `localhost` matches exactly (§8.3). */
const ANY_PORT_HOSTS = new Set(['127.0.0.1', '[::1]']);
/** Schemes that run or read something in the browser instead of reaching a client. */
const UNSAFE_SCHEMES = new Set(['javascript:', 'data:', 'vbscript:', 'file:', 'blob:', 'about:', 'filesystem:']);

/**
 * What is wrong with a redirect URI a client declares (registration, metadata document,
 * pre-registered client), or `undefined` when it may be used: an absolute URL of at most 512
 * characters, with no fragment (not even an empty `#`, RFC 6749 §3.1.2) and no user name or
 * password; `https`, `http` on a loopback host only, or a native app's private-use scheme
 * (`com.example.app:/callback`, RFC 8252 §7.1) — never a scheme that runs in the browser.
 */
export function redirectUriProblem(uri: unknown): string | undefined {
  if (typeof uri !== 'string') return 'must be a string';
  if (uri.length > MAX_REDIRECT_URI_LENGTH) return `is longer than ${MAX_REDIRECT_URI_LENGTH} characters`;
  if (!URL.canParse(uri)) return 'must be an absolute URL';
  if (uri.includes('#')) return 'must not have a fragment (#)';
  const url = new URL(uri);
  if (url.username || url.password) return 'must not carry a user name or password';
  if (url.protocol === 'https:') return undefined;
  if (url.protocol === 'http:')
    return LOOPBACK_HOSTS.has(url.hostname) ? undefined : 'must use https (http only on localhost, 127.0.0.1 or [::1])';
  if (UNSAFE_SCHEMES.has(url.protocol)) return `must not use the ${url.protocol} scheme`;
  return undefined;
}

/**
 * Whether `asked` (an authorization request's `redirect_uri`) is one of `declared`: the same
 * string, or — for a declared `http` URI on a loopback IP literal — the same URI with another port
 * (RFC 8252 §7.3: a native app's listener takes whatever port is free). Never one with a fragment
 * or credentials, whatever was declared.
 */
export function matchesRedirectUri(declared: readonly string[], asked: string): boolean {
  if (asked.includes('#') || !URL.canParse(asked)) return false;
  const url = new URL(asked);
  if (url.username || url.password) return false;
  if (declared.includes(asked)) return true;
  if (url.protocol !== 'http:' || !ANY_PORT_HOSTS.has(url.hostname)) return false;
  return declared.some((uri) => {
    if (uri.includes('#') || !URL.canParse(uri)) return false;
    const candidate = new URL(uri);
    return (
      candidate.protocol === 'http:' &&
      !candidate.username &&
      !candidate.password &&
      candidate.hostname === url.hostname &&
      candidate.pathname === url.pathname &&
      candidate.search === url.search
    );
  });
}

/** Whether every redirect URI of a client is on a loopback host: any local process may be listening there (the consent page warns). */
export function redirectsToLoopbackOnly(declared: readonly string[]): boolean {
  return declared.length > 0 && declared.every((uri) => URL.canParse(uri) && LOOPBACK_HOSTS.has(new URL(uri).hostname));
}
