import { Injectable, Logger, Optional, type OnModuleInit } from '@nestjs/common';
import { DownstreamIdentity, type DownstreamTarget } from '#libs/downstream-identity';
import { McpStartupError, McpToolError, type McpCallContext } from '#libs/core';
import { McpCatalog } from '#libs/catalog';
import { CatalogPins } from '#libs/governance';
import { guardedFetch, OutboundError, OutboundPolicies, type OutboundPolicy } from '#libs/security';
import { InjectRestOptions, type RestOptions } from '../options/rest.options';
import { resolveRestApis, type RestApiOptions } from '../options/rest-api.options';
import type { OptionReport } from '#libs/core';
import { readOperations } from '../openapi/read-operations';
import { selectOperations } from '../openapi/route-selection';
import { mapOperations, REST_META_KEY } from '../openapi/tool-mapping';
import { serverUrlOf } from '../openapi/openapi-servers';
import { toRequestParts } from '../openapi/request-parts';
import type { RestDiagnostic } from '../openapi/rest-diagnostic';
import type { RestToolDefinition } from '../openapi/rest-operation';
import { routeLabel } from '../discovery/nest-route';
import { runRemote } from '../execution/remote-request';
import { RemoteRequestError } from '../execution/remote-request.error';
import { toToolResult } from '../execution/http-outcome';
import { addRestTool, toolOptionsOf } from '../registration/catalog-entry';
import { WriteConfirmations } from '../registration/write-confirmation';
import { loadOpenApiDocument, OpenApiSourceError } from './openapi-source';
import { RestApiMessages } from './rest-api.messages';

/**
 * The external REST APIs of `rest.apis` at start-up: reads each API's OpenAPI document, maps
 * its chosen operations to tools and adds them to the catalog; each call is an HTTP request to
 * the API with its configured credentials. Every problem of every API is reported at once, and
 * any error stops the start: a tool silently missing is worse than a host that says why.
 * APIs added while the host runs (virtual servers: `addApi`, `removeApi`) come and go whole.
 */
@Injectable()
export class RestApiLoader implements OnModuleInit {
  private readonly logger = new Logger('McpRest');
  /** The tools each API added, by API name (what `removeApi` takes out). */
  private readonly toolsOf = new Map<string, string[]>();

  constructor(
    private readonly catalog: McpCatalog,
    @InjectRestOptions() private readonly options: RestOptions,
    @Optional() private readonly downstream?: DownstreamIdentity,
    @Optional() private readonly pins?: CatalogPins,
  ) {}

  async onModuleInit(): Promise<void> {
    const { apis } = this.options;
    if (apis.length === 0) return;
    const diagnostics = (await Promise.all(apis.map((api) => this.expose(api, undefined)))).flat();
    for (const warning of diagnostics.filter(({ severity }) => severity === 'warning'))
      this.logger.warn(`${warning.where}: ${warning.problem} (${warning.fix})`);
    const errors = diagnostics.filter(({ severity }) => severity !== 'warning');
    if (errors.length > 0) throw new McpStartupError(errors, 'Cannot expose external REST APIs as MCP tools');
  }

  /** The names of the `rest.apis` option's APIs (an API added at run time may not take one). */
  get fixedNames(): ReadonlySet<string> {
    return new Set(this.options.apis.map((api) => api.name));
  }

  /** Validates APIs given at run time as `rest.apis` is validated (the policy of `rest.confirm` inherited likewise). */
  resolveApis(given: unknown, report: OptionReport): RestApiOptions[] {
    return resolveRestApis(given, report, { ...this.options.confirm, ask: undefined, skip: undefined });
  }

  /**
   * Adds an API while the host runs: its tools join the catalog (its clients hear
   * `list_changed`), or, when it has an error, none of them.
   * @param reach where its document and requests may connect (`OutboundPolicies`); by default,
   *   as the operator's configured URLs may. Virtual servers give their run-time policy.
   * @returns its problems
   */
  async addApi(api: RestApiOptions, reach?: OutboundPolicy): Promise<RestDiagnostic[]> {
    const diagnostics = await this.expose(api, reach);
    if (diagnostics.some(({ severity }) => severity !== 'warning')) this.removeApi(api.name);
    return diagnostics;
  }

  /** The tools an API serves (none when it is not there). */
  toolNames(name: string): readonly string[] {
    return this.toolsOf.get(name) ?? [];
  }

  /** Takes an API's tools out of the catalog; false when it added none. */
  removeApi(name: string): boolean {
    const tools = this.toolsOf.get(name);
    if (!tools) return false;
    for (const tool of tools) this.catalog.remove('tool', tool);
    this.toolsOf.delete(name);
    return true;
  }

  /**
   * Whether an API can be added: its document read and where its requests go known, nothing
   * registered (what an API given at run time is checked for before it is stored).
   * @returns its problems
   */
  async check(api: RestApiOptions, reach?: OutboundPolicy): Promise<RestDiagnostic[]> {
    const located = await this.locate(api, reach);
    if ('problems' in located) return located.problems;
    // A base URL the document names is checked now too, for a clear error (the connections are checked again).
    if (!reach || api.baseUrl) return [];
    let refusal;
    try {
      refusal = await reach.refusalOf(new URL(located.baseUrl));
    } catch (error) {
      if (!(error instanceof OutboundError)) throw error;
      refusal = { problem: error.message, fix: 'set baseUrl to where the API is served' };
    }
    if (!refusal) return [];
    return [
      {
        severity: 'error',
        where: `${api.where}.baseUrl`,
        problem: `is not set, and the document's server ${located.baseUrl}: ${refusal.problem}`,
        fix: refusal.fix,
      },
    ];
  }

  /** Reads an API's document and works out where its requests go. */
  private async locate(
    api: RestApiOptions,
    reach: OutboundPolicy | undefined,
  ): Promise<{ problems: RestDiagnostic[] } | { document: Record<string, unknown>; baseUrl: string }> {
    let loaded;
    try {
      loaded = await loadOpenApiDocument(api.document, {
        timeoutMs: api.timeoutMs,
        timeoutOption: `${api.where}.timeoutMs`,
        ...(reach && { reach }),
      });
    } catch (error) {
      if (!(error instanceof OpenApiSourceError)) throw error;
      return {
        problems: [
          {
            severity: 'error',
            where: `${api.where}.document`,
            problem: `the document ${error.message}`,
            fix: error.fix,
          },
        ],
      };
    }
    const baseUrl = api.baseUrl ?? httpUrl(serverUrlOf(loaded.document, loaded.url));
    if (!baseUrl)
      return {
        problems: [
          {
            severity: 'error',
            where: `${api.where}.baseUrl`,
            problem: "is not set, and the document's first server gives no absolute http(s) URL",
            fix: "set baseUrl: 'https://api.example.com/v1' (where the API is served, with its base path)",
          },
        ],
      };
    return { document: loaded.document, baseUrl };
  }

  /** Reads, maps and registers one API. @returns its problems, each named after the API */
  private async expose(api: RestApiOptions, reach: OutboundPolicy | undefined): Promise<RestDiagnostic[]> {
    const where = `${api.where} (${api.name})`;
    const named = (list: readonly RestDiagnostic[]) => list.map((d) => ({ ...d, where: `${where}: ${d.where}` }));
    const located = await this.locate(api, reach);
    if ('problems' in located) return located.problems;
    const { baseUrl } = located;
    const read = readOperations(located.document);
    const { selected, unmatched } = selectOperations(read.operations, {
      ...(api.operations ?? { paths: ['/**'] }),
      ...(api.exclude && { exclude: api.exclude }),
    });
    const mapped = mapOperations(selected, { prefix: api.prefix });
    const diagnostics = named([...read.diagnostics, ...mapped.diagnostics]);
    for (const rule of unmatched)
      diagnostics.push({
        severity: 'warning',
        where: `${api.where}.${rule.exclude ? 'exclude' : 'operations'}.${rule.kind}`,
        problem: `"${rule.value}" matches no operation of ${api.name}'s document`,
        fix: 'check the spelling against the document',
      });
    if (baseUrl.startsWith('http:') && api.credentials && !isLoopback(baseUrl))
      diagnostics.push({
        severity: 'warning',
        where: `${api.where}.baseUrl`,
        problem: `is plain http, so the credentials travel unencrypted to ${new URL(baseUrl).host}`,
        fix: 'use the https URL of the API',
      });
    // Pinned: the operations as this document describes them are reviewed against the pins (a
    // changed one is registered, and quarantined by governance until an approver accepts it).
    if (api.pin && this.pins)
      await this.pins.review(
        'api',
        api.name,
        api.pin,
        mapped.tools.map((definition) => ({
          kind: 'tool' as const,
          name: definition.name,
          key: definition.name,
          definition: {
            title: definition.title,
            description: definition.description,
            inputSchema: definition.inputSchema,
            outputSchema: definition.outputSchema,
            annotations: definition.annotations,
          },
        })),
      );
    const confirmWhere = `${api.where}.confirm`;
    const added: string[] = [];
    this.toolsOf.set(api.name, added);
    // The operator's base URL is theirs; one a document names is the document's (never a metadata address).
    const calls =
      reach ??
      (api.baseUrl
        ? OutboundPolicies.configured([api.baseUrl], `the REST API ${api.name}`)
        : OutboundPolicies.discovered(`the REST API ${api.name}`));
    const send = guardedFetch(calls);
    const confirmations = new WriteConfirmations(
      api.confirm,
      mapped.tools.map(({ operation }) => operation),
    );
    for (const definition of mapped.tools) {
      const options = toolOptionsOf(definition);
      const { confirm } = confirmations.decide(definition.operation, options.annotations ?? {});
      if (confirm !== undefined) options.confirm = confirm;
      options._meta = {
        ...options._meta,
        [REST_META_KEY]: { ...(options._meta?.[REST_META_KEY] as object), api: api.name },
      };
      const access = {
        scopes: api.scopes,
        roles: api.roles,
        route: `${api.name}: ${routeLabel(definition.operation)}`,
        origin: { kind: 'api' as const, name: api.name },
      };
      const refused = addRestTool(this.catalog, options, this.handlerOf(api, baseUrl, definition, send), access);
      if (refused.length === 0) added.push(options.name);
      diagnostics.push(...refused);
    }
    diagnostics.push(...confirmations.unmatchedRules(confirmWhere));
    const undecided = confirmations.report(confirmWhere);
    if (undecided) diagnostics.push(undecided);
    if (!diagnostics.some(({ severity }) => severity === 'error'))
      this.logger.log(
        `${mapped.tools.length} operation(s) of the REST API ${api.name} (${baseUrl}) exposed as MCP tools: ` +
          mapped.tools.map(({ name }) => name).join(', '),
      );
    return diagnostics;
  }

  /** The tool's handler: an HTTP request to the API, its answer mapped as a route's would be. */
  private handlerOf(api: RestApiOptions, baseUrl: string, definition: RestToolDefinition, send: typeof fetch) {
    const target: DownstreamTarget = { kind: 'api', name: api.name, credential: api.credential };
    this.downstream?.register(target);
    const downstream = api.credential.mode === 'service' ? undefined : this.downstream;
    const label = `${api.name}: ${routeLabel(definition.operation)}`;
    const resultOptions = {
      wrapsResult: definition.wrapsResult,
      operationLabel: label,
      arguments: definition.arguments,
    };
    const requestOptions = {
      ...(api.credentials && { credentials: api.credentials }),
      timeoutMs: api.timeoutMs,
      maxResponseBytes: api.maxResponseBytes,
      fetch: send,
    };
    return async (args: Record<string, unknown>, context: McpCallContext): Promise<unknown> => {
      const parts = toRequestParts(definition, args);
      // The caller's identity at the API (never their own token), worked out before anything is sent.
      const authorization = await downstream?.authorization(target, context);
      const credentials = authorization
        ? { ...api.credentials, headers: { ...api.credentials?.headers, authorization } }
        : requestOptions.credentials;
      let outcome;
      try {
        outcome = await runRemote(baseUrl, parts, { ...requestOptions, credentials, signal: context.signal });
      } catch (error) {
        if (!(error instanceof RemoteRequestError)) throw error;
        this.logger.warn(`${api.name}: ${error.message}`);
        throw new McpToolError(RestApiMessages.unanswered(api.name, error.failure, api.timeoutMs));
      }
      if (outcome.status === 401 && authorization) {
        downstream!.refused(target, context);
        throw new McpToolError(RestApiMessages.callerRefused(api.name));
      }
      // A 401 says the host's own credentials were refused: nothing the caller can fix.
      if (outcome.status === 401) {
        this.logger.error(RestApiMessages.credentialsRefusedLog(label));
        throw new McpToolError(RestApiMessages.credentialsRefused(api.name));
      }
      return toToolResult(outcome, resultOptions);
    };
  }
}

function httpUrl(url: string | undefined): string | undefined {
  return url && /^https?:\/\//i.test(url) ? url : undefined;
}

function isLoopback(url: string): boolean {
  const { hostname } = new URL(url);
  return hostname === 'localhost' || hostname === '[::1]' || hostname.startsWith('127.');
}
