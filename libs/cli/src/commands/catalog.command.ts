import { readFileSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import type { CliContext } from '../command-line/cli-context';
import { CliExitCode } from '../command-line/cli-exit-codes';
import { CliFailure } from '../command-line/cli-failure';
import { diffCatalogs } from '../catalog/catalog-diff';
import { catalogSnapshot, type CatalogSnapshot } from '../catalog/catalog-snapshot';

/** Where the snapshot is kept when no file is named: beside the project's package.json, committed. */
export const DEFAULT_SNAPSHOT_FILE = 'catalog.snapshot.json';

const USAGE = (program: string) =>
  `use "${program} catalog snapshot [file]" or "${program} catalog diff [file]" (file: ${DEFAULT_SNAPSHOT_FILE} by default)`;

/**
 * `catalog snapshot [file]` writes the host's own catalog (its tools, prompts, resources and
 * templates: names, schemas, annotations, access) to a file to commit; `catalog diff [file]`
 * compares the catalog with it and fails (exit 1) on a change that breaks a caller written
 * against it, listing each — a pipeline's guard against an accidental contract change. The
 * catalog is the application's own, whoever runs the command: not a caller's view of it.
 */
export async function catalogCommand(context: CliContext, words: readonly string[]): Promise<CliExitCode> {
  const [sub, file = DEFAULT_SNAPSHOT_FILE, extra] = words;
  if ((sub !== 'snapshot' && sub !== 'diff') || extra !== undefined || file.startsWith('--'))
    throw new CliFailure(
      `catalog: ${sub === undefined ? 'name a subcommand' : `"${[sub, file, extra].filter(Boolean).join(' ')}" is no catalog command`}; ${USAGE(context.program)}`,
      CliExitCode.usage,
    );
  const path = resolve(file);
  const now = catalogSnapshot(context.tools, context.prompts, context.resources);
  if (sub === 'snapshot') {
    writeFileSync(path, `${JSON.stringify(now, null, 2)}\n`);
    const count = (section: keyof CatalogSnapshot) => Object.keys(now[section]).length;
    context.io.stderr.write(
      `Wrote ${file}: ${count('tools')} tool(s), ${count('prompts')} prompt(s), ${count('resources')} resource(s), ${count('resourceTemplates')} template(s). Commit it; "${context.program} catalog diff" checks against it.\n`,
    );
    return CliExitCode.ok;
  }
  const before = readSnapshot(path, file, context.program);
  const { breaking, changes } = diffCatalogs(before, now);
  if (context.global.output === 'json') context.io.stdout.write(`${JSON.stringify({ breaking, changes }, null, 2)}\n`);
  else {
    const out = context.io.stdout;
    if (breaking.length > 0)
      out.write(`Breaking changes (${breaking.length}):\n${breaking.map((line) => `  - ${line}\n`).join('')}`);
    if (changes.length > 0)
      out.write(`Other changes (${changes.length}):\n${changes.map((line) => `  - ${line}\n`).join('')}`);
    if (breaking.length === 0 && changes.length === 0) out.write(`The catalog is as ${file} records it.\n`);
  }
  if (breaking.length === 0) return CliExitCode.ok;
  context.io.stderr.write(
    `The catalog breaks callers written against ${file}. If the change is intended, run "${context.program} catalog snapshot ${file}" and commit it.\n`,
  );
  return CliExitCode.toolError;
}

function readSnapshot(path: string, file: string, program: string): CatalogSnapshot {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch {
    throw new CliFailure(
      `No catalog snapshot at ${file}: run "${program} catalog snapshot ${file}" first and commit it.`,
      CliExitCode.usage,
    );
  }
  let parsed: Partial<CatalogSnapshot>;
  try {
    parsed = JSON.parse(text) as Partial<CatalogSnapshot>;
  } catch (error) {
    throw new CliFailure(`${file} is not JSON (${(error as Error).message}).`, CliExitCode.usage);
  }
  if (parsed?.catalogSnapshot !== 1)
    throw new CliFailure(
      `${file} is no catalog snapshot (it has no "catalogSnapshot": 1); write one with "${program} catalog snapshot ${file}".`,
      CliExitCode.usage,
    );
  return parsed as CatalogSnapshot;
}
