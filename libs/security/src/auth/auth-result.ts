import type { McpPrincipal } from '#libs/core';

/** Why a request was refused, as HTTP and `WWW-Authenticate` should say it. */
export interface AuthRefusal {
  ok: false;
  status: 401 | 403;
  /** RFC 6750 error code: `invalid_token`, `insufficient_scope`, or none when no credentials came. */
  error?: 'invalid_token' | 'insufficient_scope';
  description: string;
  /** Scopes that would be enough, for the `scope` parameter. */
  scope?: string[];
}

export type AuthResult = { ok: true; principal: McpPrincipal } | AuthRefusal;
