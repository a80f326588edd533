import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import * as ts from 'typescript';

/**
 * docs/packaging.md, checked against the package: every entry of `exports` in libs/package.json
 * has its row in the page's table of entry points, and every name the subpath entries export
 * (`libs/redis.ts`, `libs/postgres.ts`, `libs/cli.ts`) is named on the page. An entry or a name
 * added without its documentation fails here. (The root entry's names are many: its row points
 * at `libs/index.ts`, where each one has its JSDoc.)
 */
const LIBS_DIR = __dirname;
const page = readFileSync(join(LIBS_DIR, '..', 'docs', 'packaging.md'), 'utf8');
const manifest = JSON.parse(readFileSync(join(LIBS_DIR, 'package.json'), 'utf8')) as {
  name: string;
  exports: Record<string, unknown>;
};

/** The rows of the page's "Entry points" table, by the import they document. */
const entryRows = new Set(
  [...(page.split(/^## Entry points$/m)[1] ?? '').split(/^## /m)[0].matchAll(/^\| `([^`]+)` \|/gm)].map(
    ([, entry]) => entry,
  ),
);

/** The names a module exports (`export { A, type B } from …`, `export type { C } from …`, declarations). */
function exportedNames(file: string): string[] {
  const source = ts.createSourceFile(file, readFileSync(join(LIBS_DIR, file), 'utf8'), ts.ScriptTarget.ES2023);
  const names: string[] = [];
  for (const statement of source.statements) {
    if (ts.isExportDeclaration(statement) && statement.exportClause && ts.isNamedExports(statement.exportClause)) {
      names.push(...statement.exportClause.elements.map((element) => element.name.text));
    } else if (
      (ts.isClassDeclaration(statement) ||
        ts.isFunctionDeclaration(statement) ||
        ts.isInterfaceDeclaration(statement)) &&
      statement.name &&
      statement.modifiers?.some((modifier) => modifier.kind === ts.SyntaxKind.ExportKeyword)
    ) {
      names.push(statement.name.text);
    }
  }
  return names;
}

describe('docs/packaging.md', () => {
  it.each(Object.keys(manifest.exports))('has a row in its table of entry points for the export %s', (key) => {
    expect(entryRows).toContain(key === '.' ? manifest.name : `${manifest.name}/${key.replace(/^\.\//, '')}`);
  });

  it.each(['redis.ts', 'postgres.ts', 'cli.ts'])('names every export of libs/%s', (file) => {
    const names = exportedNames(file);
    expect(names.length).toBeGreaterThan(0);
    expect(names.filter((name) => !page.includes(`\`${name}\``))).toEqual([]);
  });
});
