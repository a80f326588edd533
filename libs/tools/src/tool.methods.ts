import { Injectable } from '@nestjs/common';
import { JsonRpcError, JsonRpcErrorCode } from '#libs/core';
import { ToolRegistry, type RegisteredTool } from '#libs/catalog';
import { needsConfirmation, ToolInvoker } from '#libs/invocation';
import {
  AccessControl,
  CallAdmission,
  CallerLists,
  CallScope,
  declaresTasks,
  InjectProtocolOptions,
  missingTasksExtension,
  TaskExtensionRunner,
  TaskRunner,
  type McpMethods,
  type McpRequest,
  type ProtocolOptions,
  type ReplyChannel,
  type RequestNote,
} from '#libs/protocol';

/**
 * `tools/list` and `tools/call`: a call is admitted (the one admission every surface shares),
 * then run now, as a 2025 task (`TaskRunner`) or as a task of the 2026-07-28 tasks extension
 * (`TaskExtensionRunner`).
 */
@Injectable()
export class ToolMethods implements McpMethods {
  readonly methods: McpMethods['methods'] = {
    'tools/list': (request) => this.lists.page(this.registry, request),
    'tools/call': (request, reply, note) => this.call(request, reply, note),
  };

  constructor(
    @InjectProtocolOptions() private readonly options: ProtocolOptions,
    private readonly registry: ToolRegistry,
    private readonly invoker: ToolInvoker,
    private readonly calls: CallScope,
    private readonly tasks: TaskRunner,
    private readonly extensionTasks: TaskExtensionRunner,
    private readonly lists: CallerLists,
    private readonly admission: CallAdmission,
    private readonly access: AccessControl,
  ) {}

  private async call(request: McpRequest, reply: ReplyChannel, note: RequestNote): Promise<string> {
    const { params, session } = request;
    const name = params.name;
    if (typeof name !== 'string')
      throw new JsonRpcError(JsonRpcErrorCode.INVALID_PARAMS, 'tools/call: "name" must be a string');
    const args = params.arguments;
    if (args !== undefined && (typeof args !== 'object' || args === null || Array.isArray(args))) {
      throw new JsonRpcError(JsonRpcErrorCode.INVALID_PARAMS, 'tools/call: "arguments" must be an object');
    }
    let entry = this.registry.get(name);
    let notFound = () => new JsonRpcError(JsonRpcErrorCode.INVALID_PARAMS, `Unknown tool: ${name}`);
    if (!entry) {
      // An MCP Apps view behind a gateway calls its server's tool by the server's own name.
      const meant = this.access.meantByOwnName(request.principal, this.registry.byOwnName(name), session, {
        kind: 'tool',
        caller: { principal: request.principal, client: session.clientInfo, transport: request.transport },
      });
      if (meant.length === 1) entry = meant[0];
      else if (meant.length > 1) {
        const names = meant
          .map((tool) => tool.name)
          .sort()
          .join(', ');
        notFound = () =>
          new JsonRpcError(
            JsonRpcErrorCode.INVALID_PARAMS,
            `Unknown tool: ${name} (ambiguous: ${names}; call one of them)`,
          );
      }
    }
    const call = await this.admission.admit(
      { kind: 'tool', target: entry?.name ?? name, entry, args, notFound, check: this.check },
      request,
      reply,
      note,
    );
    const tool = call.entry;
    const confirm = this.needsConfirmation(tool);
    if (session.stateless) {
      // 2026-07-28: the tasks extension decides, not the legacy `task` param (ignored, as it asks).
      if (tool.options.task && declaresTasks(session)) return this.extensionTasks.start(call, confirm);
      if (tool.options.task === 'required') throw missingTasksExtension(`tool "${name}" runs only as a task`);
    } else if (params.task !== undefined) {
      const task = params.task;
      if (!tool.options.task)
        throw new JsonRpcError(
          JsonRpcErrorCode.METHOD_NOT_FOUND,
          `Tool "${name}" cannot run as a task; call it without "task"`,
        );
      if (typeof task !== 'object' || task === null)
        throw new JsonRpcError(
          JsonRpcErrorCode.INVALID_PARAMS,
          'tools/call: "task" must be an object like { "ttl": 60000 }',
        );
      return JSON.stringify(await this.tasks.start(call, task as { ttl?: unknown }, confirm));
    } else if (tool.options.task === 'required')
      throw new JsonRpcError(
        JsonRpcErrorCode.METHOD_NOT_FOUND,
        `Tool "${name}" must run as a task: add "task": {} to the params`,
      );
    const result = await this.calls.serve(call, (context) =>
      this.invoker.invoke(
        tool,
        call.checked ?? this.check(tool, call.args),
        context,
        confirm,
        this.options.tools.timeoutMs,
      ),
    );
    return JSON.stringify(result);
  }

  /** A tool's arguments against its schema, in the admission: before any policy reads them. */
  private readonly check = (tool: RegisteredTool, args: unknown) => this.invoker.check(tool, args);

  /** The tool's own `confirm` option wins; otherwise the host's policy for destructive tools. */
  private needsConfirmation(tool: RegisteredTool): boolean {
    return needsConfirmation(tool, this.options.tools.confirmDestructive);
  }
}
