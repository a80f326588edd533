import { JsonRpcErrorCode } from '#libs/core';

export type JsonRpcId = string | number;

/** An incoming JSON-RPC message after shape checks. */
export interface JsonRpcMessage {
  jsonrpc: '2.0';
  id?: JsonRpcId;
  method?: string;
  params?: Record<string, unknown>;
  result?: unknown;
  error?: unknown;
}

export type MessageKind = 'request' | 'notification' | 'response';

/** Classifies a parsed value, or returns the reason it is not a valid JSON-RPC 2.0 message. */
export function classify(
  value: unknown,
): { kind: MessageKind; message: JsonRpcMessage } | { invalid: string; id: JsonRpcId | null } {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return {
      invalid: Array.isArray(value)
        ? 'batch requests are not supported; send one message per request'
        : 'a JSON-RPC message must be an object',
      id: null,
    };
  }
  const message = value as Record<string, unknown>;
  const id =
    typeof message.id === 'string' || (typeof message.id === 'number' && Number.isFinite(message.id))
      ? (message.id as JsonRpcId)
      : null;
  if (message.jsonrpc !== '2.0') return { invalid: '"jsonrpc" must be "2.0"', id };
  if ('id' in message && id === null) return { invalid: '"id" must be a string or a number', id: null };
  if (
    message.params !== undefined &&
    (typeof message.params !== 'object' || message.params === null || Array.isArray(message.params))
  ) {
    return { invalid: '"params" must be an object', id };
  }
  if (typeof message.method === 'string') {
    return { kind: id === null ? 'notification' : 'request', message: message as unknown as JsonRpcMessage };
  }
  if (id !== null && ('result' in message || 'error' in message))
    return { kind: 'response', message: message as unknown as JsonRpcMessage };
  return { invalid: '"method" must be a string', id };
}

/** A response whose `result` is already JSON text (list pages are serialized once). */
export function resultResponse(id: JsonRpcId, resultJson: string): string {
  return `{"jsonrpc":"2.0","id":${typeof id === 'number' ? id : JSON.stringify(id)},"result":${resultJson}}`;
}

export function errorResponse(id: JsonRpcId | null, code: number, message: string, data?: unknown): string {
  return JSON.stringify({ jsonrpc: '2.0', id, error: { code, message, ...(data !== undefined && { data }) } });
}

export function notification(method: string, params: Record<string, unknown>): string {
  return JSON.stringify({ jsonrpc: '2.0', method, params });
}

export const PARSE_ERROR_RESPONSE = errorResponse(
  null,
  JsonRpcErrorCode.PARSE_ERROR,
  'Parse error: the body is not valid JSON',
);
