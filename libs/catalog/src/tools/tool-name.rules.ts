/** The spec's guidance for tool names (2025-11-25): 1–128 of A-Z a-z 0-9 _ - . */
const TOOL_NAME = /^[A-Za-z0-9_.-]{1,128}$/;

export function isValidToolName(name: string): boolean {
  return TOOL_NAME.test(name);
}
