import { createHash, randomBytes } from 'node:crypto';
import { Injectable } from '@nestjs/common';

interface Grant {
  tool: string;
  digest: string;
  sessionId: string | undefined;
  expiresAt: number;
}

/** How long a confirmation token stays valid. */
export const CONFIRMATION_TTL_MS = 5 * 60_000;

/**
 * Single-use, short-lived tokens that stand for a user's confirmation of one call: the same
 * tool, the same arguments, from the same session. In process memory.
 */
@Injectable()
export class ConfirmationTokens {
  private readonly grants = new Map<string, Grant>();

  issue(tool: string, args: unknown, sessionId: string | undefined, now = Date.now()): string {
    this.prune(now);
    const token = randomBytes(24).toString('base64url');
    this.grants.set(token, { tool, digest: digest(args), sessionId, expiresAt: now + CONFIRMATION_TTL_MS });
    return token;
  }

  /** Uses up `token` if it confirms exactly this call; true when it does. */
  redeem(token: unknown, tool: string, args: unknown, sessionId: string | undefined, now = Date.now()): boolean {
    if (typeof token !== 'string') return false;
    const grant = this.grants.get(token);
    if (!grant) return false;
    this.grants.delete(token);
    return grant.expiresAt > now && grant.tool === tool && grant.sessionId === sessionId && grant.digest === digest(args);
  }

  private prune(now: number): void {
    for (const [token, grant] of this.grants) if (grant.expiresAt <= now) this.grants.delete(token);
  }
}

/** A digest of the arguments that does not depend on key order. */
function digest(value: unknown): string {
  return createHash('sha256').update(canonical(value)).digest('base64url');
}

function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value && typeof value === 'object') {
    return `{${Object.keys(value).sort().map((key) => `${JSON.stringify(key)}:${canonical((value as Record<string, unknown>)[key])}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}
