/**
 * `npm run audit:verify -- [file]` checks an audit trail's hash chain and names the first record
 * that breaks it. Exit code 0: intact; 1: broken; 2: could not be read.
 *
 *   npm run audit:verify -- audit/audit.jsonl             # the file and its rotated siblings
 *   npm run audit:verify -- --lines /var/log/mcp-audit.log   # what a SIEM wrote: syslog, a webhook receiver's log
 *   npm run audit:verify -- --postgres "$DATABASE_URL"    # the PostgreSQL sink's table
 *   npm run audit:verify -- --postgres "$DATABASE_URL" --schema audit --table desk_calls
 */
import { createReadStream } from 'node:fs';
import { createInterface } from 'node:readline';
import { readTrail, verifyChain, type AuditRecord, type JsonlLocation } from 'nest-mcp-host';
import { PostgresAuditSink } from 'nest-mcp-host/postgres';

const USAGE =
  'usage: npm run audit:verify -- [<trail.jsonl>] | --lines <delivered.log> | --postgres [<connection-url>] [--schema <name>] [--table <name>]';
const VALUE_FLAGS = new Set(['--schema', '--table', '--lines']);

class UsageError extends Error {}

async function main(args: string[]): Promise<number> {
  if (args.includes('--help') || args.includes('-h')) {
    console.log(USAGE);
    return 0;
  }
  const { flags, paths } = parse(args);
  if (flags.has('--lines')) {
    if (flags.size > 1 || paths.length > 0) throw new UsageError('--lines takes one file and no other option');
    return verifyLines(flags.get('--lines')!);
  }
  if (!flags.has('--postgres')) {
    if (flags.size > 0) throw new UsageError(`${[...flags.keys()].join(', ')} only apply with --postgres`);
    if (paths.length > 1) throw new UsageError(`one trail file at a time (got ${paths.join(', ')})`);
    return verifyFile(paths[0] ?? process.env.AUDIT_FILE ?? 'audit/audit.jsonl');
  }
  if (paths.length > 1) throw new UsageError(`unexpected argument(s) ${paths.slice(1).join(', ')}`);
  const url = paths[0] ?? process.env.DATABASE_URL;
  if (!url)
    throw new UsageError('--postgres needs a connection URL (postgres://user:password@host:5432/db) or DATABASE_URL');
  return verifyPostgres(url, flags.get('--schema'), flags.get('--table'));
}

/** `--postgres` may be followed by its URL; `--schema` and `--table` by their names; anything else is a path. */
function parse(args: string[]): { flags: Map<string, string | undefined>; paths: string[] } {
  const flags = new Map<string, string | undefined>();
  const paths: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const arg = args[i];
    if (arg === '--postgres') flags.set(arg, undefined);
    else if (VALUE_FLAGS.has(arg)) {
      const value = args[++i];
      if (value === undefined || value.startsWith('--')) throw new UsageError(`${arg} needs a name`);
      flags.set(arg, value);
    } else if (arg.startsWith('-')) throw new UsageError(`unknown option ${arg}`);
    else paths.push(arg);
  }
  return { flags, paths };
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

/**
 * A file a SIEM wrote, one record a line after whatever the receiver put before it (a syslog
 * file's timestamp and host, say): each record is read from the first `{"` of its line; lines
 * with no record are passed over. Deliveries retry, so an exact repeat of a record is skipped.
 */
async function verifyLines(file: string): Promise<number> {
  let line = 0;
  let records = 0;
  async function* read(): AsyncGenerator<AuditRecord> {
    const lines = createInterface({ input: createReadStream(file, 'utf8'), crlfDelay: Infinity });
    for await (const text of lines) {
      line++;
      const start = text.indexOf('{"');
      if (start < 0) continue;
      records++;
      let record: AuditRecord;
      try {
        record = JSON.parse(text.slice(start)) as AuditRecord;
      } catch {
        record = {} as AuditRecord; // named by verifyChain as no record
      }
      yield record;
    }
  }
  const result = await verifyChain(read(), { repeats: true });
  if (result.ok && records === 0) {
    console.error(`No audit records found in ${file}.`);
    return 2;
  }
  return report(result, `${file}:${line}`);
}

async function verifyPostgres(
  connectionString: string,
  schema: string | undefined,
  table = 'mcp_audit_records',
): Promise<number> {
  const sink = new PostgresAuditSink({ connectionString, table, ...(schema && { schema }) });
  const name = schema ? `${schema}.${table}` : table;
  try {
    const result = await verifyChain(sink.read());
    if (result.ok && result.count === 0) {
      console.error(`No audit records found in table ${name}.`);
      return 2;
    }
    return report(result, `table ${name}`);
  } finally {
    await sink.close();
  }
}

function report(result: Awaited<ReturnType<typeof verifyChain>>, where: string): number {
  if (result.ok) {
    const repeats = result.repeats ? ` (${result.repeats} delivered twice, each copy identical: skipped)` : '';
    console.log(`OK: ${result.count} record(s) in ${result.chains} chain(s), every hash and link verified${repeats}.`);
    return 0;
  }
  const { id, chain, seq, position } = result.brokenAt;
  console.error(`BROKEN at record #${position} (id ${id}, chain ${chain}, seq ${seq}) in ${where}: ${result.reason}.`);
  return 1;
}

main(process.argv.slice(2)).then(
  (code) => (process.exitCode = code),
  (error: unknown) => {
    if (error instanceof UsageError) console.error(`${error.message}\n${USAGE}`);
    else console.error(`Could not verify the trail: ${(error as Error)?.message ?? String(error)}`);
    process.exitCode = 2;
  },
);
