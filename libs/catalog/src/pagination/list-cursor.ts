import { JsonRpcError, JsonRpcErrorCode } from '#libs/core';

/**
 * Opaque cursors for list pagination: base64url of `<list>:<offset>`. Clients must not parse
 * them; the host rejects anything it did not issue with `-32602`.
 */
export function encodeCursor(list: string, offset: number): string {
  return Buffer.from(`${list}:${offset}`).toString('base64url');
}

export function decodeCursor(list: string, cursor: unknown, total: number): number {
  if (cursor === undefined) return 0;
  if (typeof cursor === 'string') {
    const match = /^([a-z/]+):(\d{1,9})$/.exec(Buffer.from(cursor, 'base64url').toString('utf8'));
    if (match && match[1] === list) {
      const offset = Number(match[2]);
      if (offset > 0 && offset < total) return offset;
    }
  }
  throw new JsonRpcError(
    JsonRpcErrorCode.INVALID_PARAMS,
    `Invalid cursor for ${list}: use the nextCursor of a previous ${list} result`,
  );
}
