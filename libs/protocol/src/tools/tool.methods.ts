import { Injectable } from '@nestjs/common';
import { JsonRpcError, JsonRpcErrorCode } from '#libs/core';
import { ToolRegistry, type RegisteredTool } from '#libs/catalog';
import { ToolInvoker } from '#libs/invocation';
import { InjectProtocolOptions, type ProtocolOptions } from '../protocol.options';
import { TaskRunner } from '../tasks/task.runner';
import { AccessControl, AccessDeniedError } from '../admission/access-control';
import type { RequestNote } from '../events/request-note';
import { sensitiveFieldsOfTool } from '../events/sensitive-fields.cache';
import { RequestTelemetry } from '../events/request-telemetry';
import { CallScope } from '../dispatch/call-scope';
import type { DispatchScope, McpMethods, MethodHandler } from '../dispatch/method-handler';
import type { JsonRpcId } from '../dispatch/json-rpc';

/** `tools/list` and `tools/call`. */
@Injectable()
export class ToolMethods implements McpMethods {
  readonly methods: Record<string, MethodHandler> = {
    'tools/list': (params, _id, scope) => this.registry.listPage(params.cursor, this.options.pageSize, this.access.view(scope.principal)),
    'tools/call': (params, id, scope, note) => this.call(params, id, scope, note),
  };

  constructor(
    @InjectProtocolOptions() private readonly options: ProtocolOptions,
    private readonly registry: ToolRegistry,
    private readonly invoker: ToolInvoker,
    private readonly calls: CallScope,
    private readonly tasks: TaskRunner,
    private readonly access: AccessControl,
    private readonly telemetry: RequestTelemetry,
  ) {}

  private async call(params: Record<string, unknown>, id: JsonRpcId, scope: DispatchScope, note: RequestNote): Promise<string> {
    const name = params.name;
    if (typeof name !== 'string') throw new JsonRpcError(JsonRpcErrorCode.INVALID_PARAMS, 'tools/call: "name" must be a string');
    const registered = this.registry.get(name);
    const args = params.arguments;
    note.entry('tool', name, args, sensitiveFieldsOfTool(registered));
    // A tool the caller may not use is answered exactly like one that does not exist.
    const tool = this.access.visible(scope.principal, registered);
    if (!tool) {
      const message = `Unknown tool: ${name}`;
      throw registered ? new AccessDeniedError(JsonRpcErrorCode.INVALID_PARAMS, message) : new JsonRpcError(JsonRpcErrorCode.INVALID_PARAMS, message);
    }
    if (args !== undefined && (typeof args !== 'object' || args === null || Array.isArray(args))) {
      throw new JsonRpcError(JsonRpcErrorCode.INVALID_PARAMS, 'tools/call: "arguments" must be an object');
    }
    await this.access.authorizeCall(scope.principal, 'tool', name, args, tool);
    this.telemetry.admit(note);
    const confirm = this.needsConfirmation(tool);
    const task = params.task;
    if (task !== undefined) {
      if (!tool.options.task) throw new JsonRpcError(JsonRpcErrorCode.METHOD_NOT_FOUND, `Tool "${name}" cannot run as a task; call it without "task"`);
      if (typeof task !== 'object' || task === null) throw new JsonRpcError(JsonRpcErrorCode.INVALID_PARAMS, 'tools/call: "task" must be an object like { "ttl": 60000 }');
      return JSON.stringify(await this.tasks.start(tool, args, task as { ttl?: unknown }, params, id, scope, confirm, note));
    }
    if (tool.options.task === 'required') throw new JsonRpcError(JsonRpcErrorCode.METHOD_NOT_FOUND, `Tool "${name}" must run as a task: add "task": {} to the params`);
    const result = await this.calls.run(scope, id, 'tool', name, params, note, (context) => this.invoker.invoke(tool, args, context, confirm, this.options.tools.timeoutMs));
    return JSON.stringify(result);
  }

  /** The tool's own `confirm` option wins; otherwise the host's policy for destructive tools. */
  private needsConfirmation(tool: RegisteredTool): boolean {
    const { confirm, annotations } = tool.options;
    return confirm !== undefined ? confirm !== false : this.options.tools.confirmDestructive && annotations?.destructiveHint === true;
  }
}
