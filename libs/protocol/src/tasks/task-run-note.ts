import type { RegisteredTool } from '#libs/catalog';
import { RequestNote } from '../events/request-note';
import { MCP_METHODS } from '../wire/mcp-method.table';
import type { AdmittedCall } from '../admission/admitted-call';

/**
 * The audit record of a task's background run (`tasks/run`), audited on its own when the run ends
 * with the task's outcome and run time. It joins the trace of the `tools/call` that created the
 * task (the call's note).
 * @internal
 */
export function taskRunNote({ request, note: created, entry, args }: AdmittedCall<RegisteredTool>): RequestNote {
  const { session } = request;
  const run = new RequestNote(
    'tasks/run',
    MCP_METHODS['tasks/run'],
    request.transport,
    request.principal.id,
    session.id,
    session.clientInfo,
    request.remoteAddress,
    session.protocolVersion,
  );
  run.entry('tool', entry.name, args, created.sensitive);
  run.route = created.route;
  run.traceId = created.traceId;
  return run;
}
