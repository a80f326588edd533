/** Kinds of handler parameters the invoker knows how to fill. */
export enum McpParamType {
  ARGS = 0,
  CONTEXT = 1,
  CALLER = 2,
}
