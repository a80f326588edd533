import type { RegisteredTool } from '#libs/catalog';
import type { DispatchScope } from '../methods/method-handler';
import { RequestNote } from '../events/request-note';
import { MCP_METHODS } from '../wire/mcp-method.table';

/**
 * The audit record of a task's background run (`tasks/run`), audited on its own when the run ends
 * with the task's outcome and run time; both task runners (2025-11-25 and the extension) use it.
 * @param created the note of the `tools/call` that created the task: the run joins its trace
 * @internal
 */
export function taskRunNote(
  tool: RegisteredTool,
  args: unknown,
  scope: DispatchScope,
  created: RequestNote,
): RequestNote {
  const run = new RequestNote(
    'tasks/run',
    MCP_METHODS['tasks/run'],
    scope.transport,
    scope.principal.id,
    scope.session.id,
    scope.session.clientInfo,
    scope.remoteAddress,
    scope.session.protocolVersion,
  );
  run.entry('tool', tool.name, args, created.sensitive);
  run.route = created.route;
  run.traceId = created.traceId;
  return run;
}
