import type { IncomingHttpHeaders } from 'node:http';
import type { JsonRpcError } from '#libs/core';
import type { ToolHeaderParam } from '#libs/catalog';
import { headerMismatch, quoted } from './header-mismatch';
import { rawHeader, readHeaderValue } from './header-value';

/** A decimal number as a header may write an integer (`42`, `-7`, `42.0`, `4.2e1`). */
const NUMBER = /^-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?$/;

/**
 * The `Mcp-Param-{Name}` headers of a `tools/call` against its arguments, for each parameter the
 * tool marks `x-mcp-header` (2026-07-28 "Server Behavior for Custom Headers"): a value in the
 * arguments needs its header, equal once decoded (integers compared as numbers, booleans as
 * `true`/`false`); no value (absent or `null`) needs no header, and a header sent anyway
 * contradicts the body. Headers of parameters the tool does not mark are ignored.
 * @returns `-32020` when a header is missing, malformed or different, else `undefined`
 */
export function checkParamHeaders(
  headers: IncomingHttpHeaders,
  params: readonly ToolHeaderParam[],
  args: unknown,
): JsonRpcError | undefined {
  for (const param of params) {
    const header = `Mcp-Param-${param.header}`;
    const raw = rawHeader(headers, header.toLowerCase());
    const value = valueAt(args, param.path);
    const where = `arguments.${param.path.join('.')}`;
    if (value === undefined || value === null) {
      if (raw !== undefined) return headerMismatch(`${header} is sent but ${where} has no value`);
      continue;
    }
    if (raw === undefined) return headerMismatch(`the ${header} header is required when ${where} is given`);
    const sent = readHeaderValue(raw, true);
    if ('invalid' in sent) return headerMismatch(`${header} ${sent.invalid}`);
    if (!matches(sent.text, value))
      return headerMismatch(
        `${header} header value ${quoted(sent.text)} does not match body ${where} ${quoted(value)}`,
      );
  }
  return undefined;
}

/** The value at a chain of property names, or `undefined` where the chain breaks. */
function valueAt(args: unknown, path: readonly string[]): unknown {
  let value = args;
  for (const key of path) {
    if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
    value = (value as Record<string, unknown>)[key];
  }
  return value;
}

/** Whether a header's text stands for the body value, compared by the value's type. */
function matches(text: string, value: unknown): boolean {
  switch (typeof value) {
    case 'string':
      return text === value;
    case 'number':
      return NUMBER.test(text) && Number(text) === value;
    case 'boolean':
      return text === String(value);
    default:
      return false; // an object or array cannot be mirrored: the client's header cannot stand for it
  }
}
