import type { Provider } from '@nestjs/common';
import { AuditForwarder } from './audit/audit-forwarder';
import { AuditTrail } from './audit/audit-trail';
import { AuthFailureLimiter } from './auth/auth-failure.limiter';
import { Authenticator } from './auth/authenticator';
import { MCP_LOCAL_TOKEN_KEYS, type LocalTokenKeys } from './auth/local-token-keys';
import { ClientAddresses } from './http/client-addresses';
import { MCP_SECURITY_OPTIONS, type SecurityOptions } from './security.options';

/** The security services a host is made of, each from its slice of the options (`MCP_SECURITY_OPTIONS`). */
export const SECURITY_PROVIDERS: Provider[] = [
  {
    provide: Authenticator,
    useFactory: ({ auth }: SecurityOptions, localKeys?: LocalTokenKeys) => new Authenticator(auth, localKeys),
    inject: [MCP_SECURITY_OPTIONS, { token: MCP_LOCAL_TOKEN_KEYS, optional: true }],
  },
  {
    // `undefined` without the `audit` option: whoever injects it does so with @Optional().
    provide: AuditTrail,
    useFactory: ({ audit }: SecurityOptions) =>
      audit
        ? new AuditTrail(
            audit.sink,
            audit.settings,
            audit.forward.map(({ sink, settings }) => new AuditForwarder(sink, settings)),
          )
        : undefined,
    inject: [MCP_SECURITY_OPTIONS],
  },
  {
    // One count of failed authentications per address for every protected surface.
    provide: AuthFailureLimiter,
    useFactory: ({ authFailureLimit }: SecurityOptions) =>
      new AuthFailureLimiter(authFailureLimit.limit, authFailureLimit.windowMs),
    inject: [MCP_SECURITY_OPTIONS],
  },
  {
    // One answer to "who is the client?" for every address-keyed decision (trustProxy).
    provide: ClientAddresses,
    useFactory: ({ clientAddresses }: SecurityOptions) => clientAddresses,
    inject: [MCP_SECURITY_OPTIONS],
  },
];
