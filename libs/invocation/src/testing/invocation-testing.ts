import type { Provider } from '@nestjs/common';
import { DiscoveryModule } from '@nestjs/core';
import { Test, type TestingModule } from '@nestjs/testing';
import type { McpPrincipal } from '#libs/core';
import { CATALOG_PROVIDERS, LOCAL_CATALOG_TOGGLES } from '#libs/catalog';
import { SecretRedactor } from '#libs/security';
import { CallCancellation } from '../context/call-cancellation';
import { CallContext } from '../context/call-context';
import { INVOCATION_PROVIDERS } from '../invocation.providers';
import { MCP_INVOCATION_OPTIONS, type InvocationOptions } from '../options/invocation.options';

/** For the invocation specs only (nothing outside the specs imports this folder). */

/** The options the specs run with: secrets redacted, undeclared arguments refused, no approval page. */
export const TEST_INVOCATION_OPTIONS: InvocationOptions = {
  redactor: new SecretRedactor(),
  unknownArguments: 'refuse',
  approvals: { ttlMs: 60_000, waitMs: 0, pageOf: undefined },
};

/**
 * The catalog and invocation providers as `McpModule` lists them, with the invocation slice of
 * the options, around the specs' own providers; initialized (the catalog has found their tools).
 */
export async function invocationTestingModule(
  providers: Provider[],
  options = TEST_INVOCATION_OPTIONS,
): Promise<TestingModule> {
  const moduleRef = await Test.createTestingModule({
    imports: [DiscoveryModule],
    providers: [
      ...CATALOG_PROVIDERS,
      LOCAL_CATALOG_TOGGLES,
      ...INVOCATION_PROVIDERS,
      { provide: MCP_INVOCATION_OPTIONS, useValue: options },
      ...providers,
    ],
  }).compile();
  await moduleRef.init();
  return moduleRef;
}

/** What a call of `target` is given by the engine, for a caller `alice` over stateful HTTP, with no client to ask. */
export function testCallContext(
  target: string,
  {
    roles = [],
    requestId = 1,
    meta = {},
  }: { roles?: string[]; requestId?: string | number; meta?: Record<string, unknown> } = {},
): CallContext {
  const caller: McpPrincipal = { id: 'alice', scopes: [], roles, claims: {} };
  return new CallContext({
    requestId,
    sessionId: 's1',
    protocolVersion: '2025-11-25',
    kind: 'tool',
    target,
    transport: 'http',
    clientInfo: undefined,
    caller,
    headers: {},
    remoteAddress: '127.0.0.1',
    meta,
    progressToken: undefined,
    cancellation: new CallCancellation(),
    channel: {
      notify: () => undefined,
      logLevel: undefined,
      requestsUnavailable: undefined,
      clientCapabilities: {},
      closeStream: () => undefined,
      request: () => Promise.reject(new Error('no client')),
    },
  });
}
