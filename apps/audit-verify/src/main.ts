/**
 * `npm run audit:verify -- [file]` checks an audit trail's hash chain and names the first record
 * that breaks it. Exit code 0: intact; 1: broken; 2: could not be read.
 *
 *   npm run audit:verify -- audit/audit.jsonl             # the file and its rotated siblings
 *   npm run audit:verify -- --postgres "$DATABASE_URL"    # the PostgreSQL sink's table
 */
import { PostgresAuditSink, readTrail, verifyChain, type AuditRecord, type JsonlLocation } from '#libs/security';

const USAGE = 'usage: npm run audit:verify -- [<trail.jsonl>] | --postgres <connection-url> [--table <name>]';

async function main(args: string[]): Promise<number> {
  if (args.includes('--help') || args.includes('-h')) {
    console.log(USAGE);
    return 0;
  }
  const postgres = valueOf(args, '--postgres');
  return postgres ? verifyPostgres(postgres, valueOf(args, '--table')) : verifyFile(args.find((arg) => !arg.startsWith('--')) ?? process.env.AUDIT_FILE ?? 'audit/audit.jsonl');
}

async function verifyFile(file: string): Promise<number> {
  let where: JsonlLocation | undefined;
  async function* records(): AsyncGenerator<AuditRecord> {
    for await (const { record, file: path, line } of readTrail(file)) {
      where = { file: path, line };
      yield record ?? ({} as AuditRecord);
    }
  }
  const result = await verifyChain(records());
  if (result.ok && result.count === 0) {
    console.error(`No audit records found at ${file} (nor rotated files beside it). ${USAGE}`);
    return 2;
  }
  return report(result, where ? `${where.file}:${where.line}` : file);
}

async function verifyPostgres(connectionString: string, table: string | undefined): Promise<number> {
  const sink = new PostgresAuditSink({ connectionString, ...(table && { table }) });
  try {
    const result = await verifyChain(sink.read());
    if (result.ok && result.count === 0) {
      console.error(`No audit records found in table ${table ?? 'mcp_audit_records'}.`);
      return 2;
    }
    return report(result, `table ${table ?? 'mcp_audit_records'}`);
  } finally {
    await sink.close();
  }
}

function report(result: Awaited<ReturnType<typeof verifyChain>>, where: string): number {
  if (result.ok) {
    console.log(`OK: ${result.count} record(s) in ${result.chains} chain(s), every hash and link verified.`);
    return 0;
  }
  const { id, chain, seq, position } = result.brokenAt;
  console.error(`BROKEN at record #${position} (id ${id}, chain ${chain}, seq ${seq}) in ${where}: ${result.reason}.`);
  return 1;
}

function valueOf(args: string[], flag: string): string | undefined {
  const index = args.indexOf(flag);
  return index >= 0 ? args[index + 1] : undefined;
}

main(process.argv.slice(2)).then(
  (code) => (process.exitCode = code),
  (error: unknown) => {
    console.error(`Could not verify the trail: ${(error as Error)?.message ?? String(error)}`);
    process.exitCode = 2;
  },
);
