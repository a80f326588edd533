import type { RequestNote } from '../events/request-note';
import type { McpRequest } from '../requests/mcp-request';

/** The task a request names (`params.taskId`), noted as the request's target for the audit trail. */
export function taskIdOf({ params }: McpRequest, note: RequestNote): unknown {
  if (typeof params.taskId === 'string') note.target = params.taskId;
  return params.taskId;
}
