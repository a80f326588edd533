import { RequestNote } from '../events/request-note';
import { traitsOf } from '../wire/mcp-method.table';
import type { McpRequest } from './mcp-request';

/**
 * The note (the audit record and metrics event in the making) of `request`, or of work it
 * started under another method of the table (a task's run: `tasks/run`).
 */
export function requestNoteOf(request: McpRequest, method = request.method ?? null): RequestNote {
  const { session } = request;
  const note = new RequestNote(
    method,
    traitsOf(method),
    request.transport,
    request.principal.id,
    session.id,
    session.clientInfo,
    request.remoteAddress,
    session.protocolVersion,
  );
  if (request.principal.server) note.server = request.principal.server.name;
  return note;
}
