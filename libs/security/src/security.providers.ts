import type { Provider } from '@nestjs/common';
import { AuditForwarder } from './audit/audit-forwarder';
import { AuditTrail } from './audit/audit-trail';
import { MCP_COMMAND_LINE_RUN } from './audit/command-line-run';
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
    useFactory: ({ audit }: SecurityOptions, commandLine?: boolean) => {
      if (!audit) return undefined;
      // A command of the CLI writes beside the hosts of the same options, not into their trail.
      const { sink, settings, forward } = commandLine ? audit.commandLine() : audit;
      return new AuditTrail(
        sink,
        settings,
        forward.map((forwarding) => new AuditForwarder(forwarding.sink, forwarding.settings)),
      );
    },
    inject: [MCP_SECURITY_OPTIONS, { token: MCP_COMMAND_LINE_RUN, optional: true }],
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
