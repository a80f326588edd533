import type { RegisteredTool } from '#libs/catalog';
import type { RequestNote } from '../events/request-note';
import { requestNoteOf } from '../requests/request-note-of';
import type { AdmittedCall } from '../admission/admitted-call';

/**
 * The audit record of a task's background run (`tasks/run`), audited on its own when the run ends
 * with the task's outcome and run time. It joins the trace of the `tools/call` that created the
 * task (the call's note).
 * @internal
 */
export function taskRunNote({ request, note: created, entry, args }: AdmittedCall<RegisteredTool>): RequestNote {
  const run = requestNoteOf(request, 'tasks/run');
  run.entry('tool', entry.name, args, created.sensitive);
  run.route = created.route;
  run.traceId = created.traceId;
  return run;
}
