/** The identifier of the tasks extension (SEP-2663), in `capabilities.extensions` of both sides. */
export const TASKS_EXTENSION = 'io.modelcontextprotocol/tasks';
