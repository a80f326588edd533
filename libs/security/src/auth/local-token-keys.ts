import { Inject, Optional } from '@nestjs/common';
import type { JWTVerifyGetKey } from 'jose';

/**
 * The signing keys of the host's own authorization server, for the `Authenticator` to check its
 * tokens with in process (no fetch of its own JWKS over HTTP). Bound by the authorization server
 * library when the `authorizationServer` option is on; absent otherwise.
 * @internal
 */
export interface LocalTokenKeys {
  /** jose's key resolver: the key a token's header names, among the current and retiring ones. */
  readonly getKey: JWTVerifyGetKey;
}

/** Token of the `LocalTokenKeys`. @internal */
export const MCP_LOCAL_TOKEN_KEYS = Symbol('MCP:LOCAL_TOKEN_KEYS');

/** Injects the `LocalTokenKeys`, or `undefined` without an authorization server. @internal */
export const InjectLocalTokenKeys = (): ParameterDecorator => (target, key, index) => {
  Inject(MCP_LOCAL_TOKEN_KEYS)(target, key, index);
  Optional()(target, key, index);
};
