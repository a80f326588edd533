import { randomUUID } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { INestApplication } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { AppModule } from '../../src/app.module';

/** The demo keys of config/api-keys.example.json (README). */
export const DESK_KEYS = {
  /** desk-reader: tickets:read, kb:read */
  reader: 'desk-demo-read-only-key',
  /** desk-admin: every scope, role admin */
  admin: 'desk-demo-admin-key',
  /** desk-approver: tickets:read, role approver */
  approver: 'desk-demo-approver-key',
} as const;

/** Starts the support desk over Streamable HTTP on a loopback port, with `env` on top of the process's. */
export async function startDesk(env: Record<string, string> = {}): Promise<{ app: INestApplication; url: string }> {
  const saved = { ...process.env };
  // Each host writes its own audit trail (one writer per file).
  Object.assign(process.env, { AUDIT_FILE: join(tmpdir(), `desk-audit-${randomUUID()}.jsonl`), ...env });
  try {
    const moduleRef = await Test.createTestingModule({
      imports: [AppModule.register({ transport: 'http' })],
    }).compile();
    const app = moduleRef.createNestApplication({ logger: false });
    await app.listen(0, '127.0.0.1');
    return { app, url: `${(await app.getUrl()).replace('[::1]', '127.0.0.1')}/mcp` };
  } finally {
    process.env = saved;
  }
}
