import { JsonRpcError, JsonRpcErrorCode } from '#libs/core';

/** Longest header or body value quoted in a refusal. */
const QUOTE_LIMIT = 80;

/** `-32020` HeaderMismatch, answered with HTTP 400 (2026-07-28 "Server Validation"). */
export function headerMismatch(problem: string): JsonRpcError {
  return new JsonRpcError(JsonRpcErrorCode.HEADER_MISMATCH, `Header mismatch: ${problem}`, undefined, 400);
}

/** A value as a refusal quotes it: JSON, cut short. */
export function quoted(value: unknown): string {
  const json = JSON.stringify(value) ?? String(value);
  return json.length > QUOTE_LIMIT ? `${json.slice(0, QUOTE_LIMIT)}…` : json;
}
