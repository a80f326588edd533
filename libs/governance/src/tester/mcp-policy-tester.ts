import type { Type } from '@nestjs/common';
import {
  PromptRegistry,
  ResourceRegistry,
  ToolRegistry,
  type McpEntryOrigin,
  type RegisteredTool,
} from '#libs/catalog';
import {
  McpStartupError,
  MCP_REQUIRED_SCOPES_METADATA,
  MCP_ROLES_METADATA,
  MCP_TOOL_METADATA,
  type McpPrincipal,
  type McpToolOptions,
  type McpTransportKind,
} from '#libs/core';
import type { AuditGovernance } from '#libs/security';
import { resolveGovernanceOptions, type McpGovernanceOptions } from '../governance.options';
import { McpGovernance } from '../mcp-governance';
import { InProcessPolicyStore } from '../store/policy-store';

/** A call to decide, as a test writes it. */
export interface PolicyTestCall {
  /** Who calls: any part of a principal (`{ roles: ['agent'], claims: { tenant: 'acme' } }`); the rest empty. */
  readonly principal?: Partial<McpPrincipal>;
  /** The tool's name: one of the providers' tools, or any name (an upstream's or API's tool: give `origin`). */
  readonly tool: string;
  readonly args?: Record<string, unknown>;
  readonly client?: { name: string; version: string };
  /** @default 'http' */
  readonly transport?: McpTransportKind;
  /** For a tool that is not one of the providers': where it comes from. @default { kind: 'local' } */
  readonly origin?: McpEntryOrigin;
  /** For a tool that is not one of the providers': its annotations. */
  readonly annotations?: Record<string, unknown>;
}

/** What the host would decide about a call. */
export interface PolicyTestDecision {
  /** The call would run. */
  readonly allowed: boolean;
  /** Refused by a policy that does not read the arguments: the caller would not even see the tool listed. */
  readonly hidden: boolean;
  /** The policy that refused, and its reason (dry-run refusals are in `audit`). */
  readonly policy?: string;
  readonly reason?: string;
  /** What the caller would be told. */
  readonly message?: string;
  /** The arguments the tool would get (a guardrail may have redacted them). */
  readonly args?: unknown;
  /** What the call's audit record would say. */
  readonly audit: AuditGovernance | undefined;
}

/**
 * Decides calls with a host's governance, without a host: the same compiler, the same policies
 * (the module's, and those `@McpPolicy` declares on the given providers), the same guardrails, so
 * a team's Jest specs can say "this principal may / may not call this tool with these arguments".
 *
 * @example
 * ```ts
 * const policies = await McpPolicyTester.create({ governance: DESK_GOVERNANCE, providers: [TicketTools] });
 * expect(policies.may({ roles: ['agent'] }, 'create_ticket', { priority: 'urgent' })).toBe(false);
 * expect(policies.decide({ principal: { roles: ['lead'] }, tool: 'create_ticket', args: { priority: 'urgent' } }))
 *   .toMatchObject({ allowed: true });
 * ```
 * @throws McpStartupError from `create`, with every problem of the policies, as the host would at start-up
 */
export class McpPolicyTester {
  private constructor(
    private readonly governance: McpGovernance,
    private readonly tools: ToolRegistry,
  ) {}

  static async create(options: {
    governance: McpGovernanceOptions;
    providers?: Type<object>[];
  }): Promise<McpPolicyTester> {
    const problems: { where: string; problem: string; fix: string }[] = [];
    const resolved = resolveGovernanceOptions({ governance: options.governance }, (where, problem, fix) =>
      problems.push({ where, problem, fix }),
    );
    if (problems.length > 0 || !resolved) throw new McpStartupError(problems);
    const tools = new ToolRegistry();
    tools.add((options.providers ?? []).flatMap(toolsOf));
    const governance = new McpGovernance(
      resolved,
      tools,
      new PromptRegistry(),
      new ResourceRegistry(),
      new InProcessPolicyStore(),
    );
    await governance.onApplicationBootstrap();
    return new McpPolicyTester(governance, tools);
  }

  /** Whether `principal` may call `tool` with `args`. */
  may(principal: Partial<McpPrincipal>, tool: string, args: Record<string, unknown> = {}): boolean {
    return this.decide({ principal, tool, args }).allowed;
  }

  /** Whether `tool` is in `principal`'s `tools/list`. */
  lists(principal: Partial<McpPrincipal>, tool: string, transport: McpTransportKind = 'http'): boolean {
    const entry = this.entryOf({ tool });
    return this.governance
      .listFilter('tool', { principal: principalOf(principal), client: undefined, transport })
      .visible(entry);
  }

  decide(call: PolicyTestCall): PolicyTestDecision {
    const verdict = this.governance.admitCall({
      principal: principalOf(call.principal ?? {}),
      client: call.client,
      transport: call.transport ?? 'http',
      kind: 'tool',
      entry: this.entryOf(call),
      args: call.args ?? {},
    });
    if (verdict.kind === 'allowed') return { allowed: true, hidden: false, args: verdict.args, audit: verdict.audit };
    const refusal = verdict.audit.refused?.at(-1);
    return {
      allowed: false,
      hidden: verdict.kind === 'hidden',
      ...(refusal && !refusal.dryRun && { policy: refusal.policy, reason: refusal.reason }),
      message: verdict.kind === 'refused' ? verdict.message : `Unknown tool: ${call.tool}`,
      audit: verdict.audit,
    };
  }

  private entryOf(call: Pick<PolicyTestCall, 'tool' | 'origin' | 'annotations'>): RegisteredTool {
    const known = this.tools.get(call.tool);
    if (known) return known;
    class Elsewhere {}
    return {
      ...toolEntry(Elsewhere, 'call', { name: call.tool, description: call.tool, annotations: call.annotations }),
      ...(call.origin && { origin: call.origin }),
    };
  }
}

function principalOf(given: Partial<McpPrincipal>): McpPrincipal {
  return { id: given.id ?? 'test', scopes: given.scopes ?? [], roles: given.roles ?? [], claims: given.claims ?? {} };
}

/** The `@McpTool` methods of a provider class, as catalog entries governance reads. */
function toolsOf(hostClass: Type<object>): RegisteredTool[] {
  const prototype = hostClass.prototype as Record<string, unknown>;
  return Object.getOwnPropertyNames(prototype).flatMap((methodName) => {
    const method = prototype[methodName];
    const options =
      typeof method === 'function'
        ? (Reflect.getMetadata(MCP_TOOL_METADATA, method) as McpToolOptions | undefined)
        : undefined;
    return options ? [toolEntry(hostClass, methodName, options)] : [];
  });
}

function toolEntry(
  hostClass: Type<object> | (new () => object),
  methodName: string,
  options: McpToolOptions,
): RegisteredTool {
  const method = (hostClass.prototype as Record<string, unknown>)[methodName] as object | undefined;
  const metadata = (key: string) => [
    ...((method && (Reflect.getMetadata(key, method) as string[] | undefined)) ?? []),
    ...((Reflect.getMetadata(key, hostClass) as string[] | undefined) ?? []),
  ];
  const name = options.name ?? methodName;
  return {
    key: name,
    name,
    where: `${hostClass.name}.${methodName}`,
    hostClass: hostClass as Type<object>,
    methodName,
    instance: undefined,
    argsBindings: [],
    access: { scopes: metadata(MCP_REQUIRED_SCOPES_METADATA), roles: metadata(MCP_ROLES_METADATA) },
    definition: {
      name,
      inputSchema: { type: 'object' },
      ...(options.annotations && { annotations: options.annotations }),
    },
    options,
    input: undefined,
    output: undefined,
  } as RegisteredTool;
}
