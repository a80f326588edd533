import { Inject } from '@nestjs/common';
import { optionChecks, type OptionReport } from '#libs/core';
import type { McpAuthOptions } from '#libs/security';
import type { AuthorizationServerOptions } from '#libs/authorization-server';
import type { UserConnectionStore } from '../store/user-connection.store';
import type { DownstreamCredential } from './downstream-credential.options';

/**
 * The `downstream` option: what the caller's identity downstream needs besides each upstream's
 * and API's `credential`.
 *
 * @example
 * ```ts
 * downstream: {
 *   idp: { issuer: 'https://login.microsoftonline.com/<tenant>/v2.0', clientId: '<app id>', clientSecret: process.env.IDP_SECRET! },
 *   connections: { encryptionKey: process.env.CONNECTIONS_KEY!, store: new PostgresUserConnectionStore({ connectionString }) },
 * }
 * ```
 */
export interface McpDownstreamOptions {
  /**
   * The company IdP, with the host's registration there: where `'token-exchange'` at `'idp'`
   * exchanges, and where a person proves who they are before connecting an account (redirect URI
   * `<connections.publicUrl><connections.path>/verified`). @default the `authorizationServer`'s `idp`
   */
  idp?: { issuer: string; clientId: string; clientSecret: string };
  /** Accounts people connect themselves (`credential: { mode: 'user' }`). */
  connections?: {
    /** The key the tokens are encrypted with at rest (AES-256-GCM): 32 bytes, base64. Required for `'user'`. */
    encryptionKey: string;
    /** The host's public URL, where the connect pages are. @default the `authorizationServer`'s issuer, else the origin of `auth.resource` */
    publicUrl?: string;
    /** The connect pages' path. @default '/connect' */
    path?: string;
    /** Where connections are kept. @default the host's shared state (in process; on the backplane with the `cluster` option); `PostgresUserConnectionStore` (`nest-mcp-host/postgres`) keeps them in PostgreSQL */
    store?: UserConnectionStore;
    /** How long a person has to finish connecting, in seconds. @default 600 */
    pendingTtlSec?: number;
  };
}

/** How connecting accounts works, as `downstream.connections` says (validated). */
export interface ConnectionSettings {
  /** The AES-256-GCM key the tokens are sealed with. */
  key: Buffer;
  /** The host's public URL. */
  publicUrl: string;
  /** The connect pages' path. */
  path: string;
  /** How long a person has to finish connecting. */
  pendingTtlMs: number;
}

/** `McpDownstreamOptions` validated, with the defaults worked out. */
export interface DownstreamOptions {
  idp: { issuer: string; clientId: string; clientSecret: string } | undefined;
  connections: (ConnectionSettings & { store: UserConnectionStore | undefined }) | undefined;
  /** The issuer of the host's authorization server (`at: 'facade'`), when there is one. */
  facadeIssuer: string | undefined;
}

/** Token of the resolved `DownstreamOptions`. */
export const MCP_DOWNSTREAM_OPTIONS = Symbol('MCP:DOWNSTREAM_OPTIONS');

/** Injects the `DownstreamOptions`. */
export const InjectDownstreamOptions = (): ParameterDecorator => Inject(MCP_DOWNSTREAM_OPTIONS);

/** The options of `McpModule` this slice reads. */
export const DOWNSTREAM_OPTION_KEYS = ['downstream'] as const;

/** The credentials of the upstreams and APIs, where each is (`rest.apis[0].credential`). */
export type DownstreamCredentialUses = readonly { where: string; credential: DownstreamCredential }[];

/**
 * Validates `downstream` against the credentials the upstreams and APIs ask for: a token
 * exchange needs an IdP to exchange at (or the facade), a user credential needs the connections'
 * key and an IdP where people prove who they are. Every problem is reported with its fix.
 */
export function resolveDownstreamOptions(
  o: Record<string, unknown>,
  uses: DownstreamCredentialUses,
  context: { auth: McpAuthOptions; facade: AuthorizationServerOptions | undefined },
  report: OptionReport,
): DownstreamOptions {
  const given = (o.downstream ?? {}) as Record<string, unknown>;
  if (typeof given !== 'object' || given === null || Array.isArray(given)) {
    report('downstream', 'must be an object', 'see docs/downstream-identity.md');
    return { idp: undefined, connections: undefined, facadeIssuer: undefined };
  }
  optionChecks(given, report, 'downstream.').known(new Set(['idp', 'connections']));
  const { auth, facade } = context;
  let idp: DownstreamOptions['idp'] = facade?.idp;
  if (given.idp !== undefined) {
    const i = given.idp as Record<string, unknown>;
    if (typeof i !== 'object' || i === null)
      report('downstream.idp', 'must be an object', 'idp: { issuer, clientId, clientSecret }');
    else {
      optionChecks(i, report, 'downstream.idp.').known(new Set(['issuer', 'clientId', 'clientSecret']));
      for (const key of ['issuer', 'clientId', 'clientSecret'])
        if (typeof i[key] !== 'string' || i[key] === '')
          report(
            `downstream.idp.${key}`,
            'must be a non-empty string',
            "the host's registration at the company IdP, e.g. issuer: 'https://login.example.com'",
          );
      if (typeof i.issuer === 'string' && !URL.canParse(i.issuer))
        report('downstream.idp.issuer', 'must be an absolute URL', "e.g. issuer: 'https://login.example.com'");
      idp = i as DownstreamOptions['idp'];
    }
  }
  const users = uses.filter(({ credential }) => credential.mode === 'user');
  let connections: DownstreamOptions['connections'];
  const c = given.connections as Record<string, unknown> | undefined;
  if (c !== undefined) {
    if (typeof c !== 'object' || c === null)
      report('downstream.connections', 'must be an object', 'connections: { encryptionKey }');
    else {
      const checks = optionChecks(c, report, 'downstream.connections.');
      checks.known(new Set(['encryptionKey', 'publicUrl', 'path', 'store', 'pendingTtlSec']));
      const key = typeof c.encryptionKey === 'string' ? Buffer.from(c.encryptionKey, 'base64') : Buffer.alloc(0);
      if (key.length !== 32)
        report(
          'downstream.connections.encryptionKey',
          'must be 32 bytes, base64',
          "make one with: node -e \"console.log(require('crypto').randomBytes(32).toString('base64'))\"; is the environment variable set?",
        );
      const publicUrl =
        c.publicUrl ??
        facade?.issuer ??
        (auth.mode === 'oauth' && URL.canParse(auth.resource) ? new URL(auth.resource).origin : undefined);
      if (typeof publicUrl !== 'string' || !URL.canParse(publicUrl))
        report(
          'downstream.connections.publicUrl',
          'is required (the host has no public URL to take it from)',
          "e.g. publicUrl: 'https://mcp.desk.example'",
        );
      const path = c.path ?? '/connect';
      if (typeof path !== 'string' || !/^\/[A-Za-z0-9/_-]*[A-Za-z0-9_-]$/.test(path))
        report('downstream.connections.path', 'must be a path such as /connect', "e.g. path: '/connect'");
      const store = c.store as UserConnectionStore | undefined;
      if (store !== undefined && (typeof store !== 'object' || store === null || typeof store.put !== 'function'))
        report(
          'downstream.connections.store',
          'must be a UserConnectionStore',
          'e.g. new PostgresUserConnectionStore({ connectionString }), or leave it out',
        );
      connections = {
        key,
        publicUrl: typeof publicUrl === 'string' ? publicUrl.replace(/\/$/, '') : '',
        path: typeof path === 'string' ? path : '/connect',
        store,
        pendingTtlMs: checks.integer('pendingTtlSec', 600, 60, 86_400) * 1000,
      };
    }
  }
  for (const { where, credential } of uses) {
    if (credential.mode === 'token-exchange') {
      const at = credential.at ?? (facade ? 'facade' : 'idp');
      if (at === 'facade' && !facade)
        report(
          `${where}.at`,
          "is 'facade', but the host runs no authorization server",
          "set the authorizationServer option, or at: 'idp'",
        );
      if (at === 'idp' && !idp)
        report(
          where,
          'exchanges at the company IdP, but none is configured',
          "set downstream.idp: { issuer, clientId, clientSecret } (the host's registration there)",
        );
      if (at === 'idp' && auth.mode !== 'oauth')
        report(
          where,
          "exchanges the caller's IdP token, but callers do not sign in with one",
          "set auth: { mode: 'oauth', issuer: <the IdP> }",
        );
    }
  }
  if (users.length > 0) {
    if (!connections)
      report(
        'downstream.connections',
        `is required by ${users.map(({ where }) => where).join(', ')}`,
        'connections: { encryptionKey: process.env.CONNECTIONS_KEY }',
      );
    if (!idp)
      report(
        'downstream.idp',
        `is required by ${users[0].where}: a person proves who they are there before connecting an account`,
        'set downstream.idp, or the authorizationServer option',
      );
    if (auth.mode !== 'oauth')
      report(
        users[0].where,
        'needs callers who are people signed in at the company IdP',
        "set auth: { mode: 'oauth' } (or the authorizationServer option)",
      );
  }
  return { idp, connections: users.length > 0 ? connections : undefined, facadeIssuer: facade?.issuer };
}
