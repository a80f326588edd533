import type { McpCallKind } from '#libs/core';

/** Where an entry comes from, as a policy's `appliesTo.origins` names it. */
export type McpPolicyOrigin = 'local' | 'rest' | 'api' | 'upstream';

/** A policy looks at a call before it runs (`call`, with its arguments) or at its result (`result`). */
export type McpPolicyStage = 'call' | 'result';

/** The entries a policy governs; every field narrows (absent: every entry). */
export interface McpPolicyScope {
  /** `tool`, `prompt`, `resource`. */
  readonly kinds?: readonly McpCallKind[];
  /** Tool or prompt names, resource URIs or templates; `*` matches any run of characters (`deskb__*`). */
  readonly names?: readonly string[];
  /** Where the entry comes from: the app's providers, its REST routes, another API (`rest.apis`), an upstream server. */
  readonly origins?: readonly McpPolicyOrigin[];
  /** The upstream's or API's name (`gateway.upstreams[].name`, `rest.apis[].name`). */
  readonly sources?: readonly string[];
  /**
   * What the entry does rather than what it is called: every tool (or route) that may change
   * something — not marked read-only (`readOnlyHint`; a route's GET or HEAD) — and takes one of
   * these arguments (a top-level property of its input schema; an entry whose arguments are not
   * described, such as a route no tool is made of, is taken to take them all). A policy on what a
   * ticket's `priority` may be set to then governs its creation and its update alike, whatever
   * they are called and wherever they come from. Prompts and resources read: never.
   */
  readonly sets?: readonly string[];
}

/**
 * A declarative policy: a CEL condition (https://cel.dev) that must hold for a call to go on.
 * The condition sees:
 * - `principal` — `{ id, scopes, roles, claims }` of the caller;
 * - `client` — `{ name, version }` the client gave (empty when none), `transport` — `http`,
 *   `stdio`, `in-process` or `cli`;
 * - `entry` — `{ kind, name, origin, source, route, annotations, scopes, roles }`;
 * - `args` — the arguments as sent (a resource template's variables), for `stage: 'call'`;
 * - `result` — what the entry answered, for `stage: 'result'`.
 *
 * A condition that does not read `args` (nor `result`) is a rule on who may use the entry at all:
 * lists leave the entry out for a caller it refuses, and a call is answered as for an entry that
 * does not exist (list ⇔ callable). One that reads `args` refuses the call with its `reason`. A
 * condition that cannot be evaluated (a missing field, a type mismatch) refuses: policies fail
 * closed. Every refusal is audited with the policy's `id` and `reason`.
 *
 * @example
 * ```ts
 * // Whatever sets a ticket's priority (its creation, its update, as a tool or a route).
 * { id: 'urgent-needs-lead', appliesTo: { sets: ['priority'] },
 *   condition: "!has(args.priority) || args.priority != 'urgent' || 'lead' in principal.roles",
 *   reason: 'only a team lead may make a ticket urgent' }
 * ```
 */
export interface McpPolicyDefinition {
  /** Unique among the host's policies; named in refusals and audit records. */
  readonly id: string;
  /** The CEL expression that must be `true`. */
  readonly condition: string;
  /** What a refused caller is told (and the audit record says). @default 'refused by policy <id>' */
  readonly reason?: string;
  /** @default 'call' */
  readonly stage?: McpPolicyStage;
  /** The entries it governs. @default every entry */
  readonly appliesTo?: McpPolicyScope;
  /** Records what it would refuse without refusing (the host's `governance.dryRun` sets it for all). @default false */
  readonly dryRun?: boolean;
}
