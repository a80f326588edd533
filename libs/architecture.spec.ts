import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

/**
 * The architecture, checked: libraries depend on each other in one direction (the order below,
 * docs/architecture.md draws it), inside each library no two folders import each other, directly
 * or around a loop, and inside each folder no two files do (type imports count: a type two files
 * share lives in the file it belongs to, not in one of the two). A new import that breaks any of
 * these fails here with the path it took.
 */
const LAYERS: readonly (readonly string[])[] = [
  ['core'],
  ['security', 'catalog'],
  ['invocation', 'authorization-server'],
  ['protocol', 'downstream-identity'],
  ['prompts', 'resources', 'tool-search'],
  ['operations', 'rest'],
  ['gateway'],
  ['hosting'],
  ['cli'],
];

const LIBS_DIR = __dirname;
const IMPORT = /(?:from|import\(|require\()\s*'([^']+)'/g;

interface SourceFile {
  lib: string;
  path: string;
  text: string;
}

function sourcesOf(lib: string): SourceFile[] {
  const files: SourceFile[] = [];
  const walk = (dir: string) => {
    for (const name of readdirSync(dir)) {
      const path = join(dir, name);
      if (statSync(path).isDirectory()) {
        if (name !== 'assets') walk(path);
      } else if (name.endsWith('.ts') && !name.endsWith('.spec.ts') && !name.endsWith('.d.ts')) {
        files.push({ lib, path, text: readFileSync(path, 'utf8') });
      }
    }
  };
  walk(join(LIBS_DIR, lib, 'src'));
  return files;
}

const LIBS = LAYERS.flat();
const SOURCES = LIBS.flatMap(sourcesOf);

/** Top folder of a file inside its lib's `src` (`.` for the files at the top). */
function folderOf(lib: string, path: string): string {
  const parts = relative(join(LIBS_DIR, lib, 'src'), path).split('/');
  return parts.length > 1 ? parts[0] : '.';
}

/** A cycle in `edges` as the path around it, or `undefined`. */
function findCycle(edges: ReadonlyMap<string, ReadonlySet<string>>): string[] | undefined {
  const state = new Map<string, 'open' | 'done'>();
  const path: string[] = [];
  const visit = (node: string): string[] | undefined => {
    if (state.get(node) === 'done') return undefined;
    if (state.get(node) === 'open') return [...path.slice(path.indexOf(node)), node];
    state.set(node, 'open');
    path.push(node);
    for (const next of edges.get(node) ?? []) {
      const cycle = visit(next);
      if (cycle) return cycle;
    }
    path.pop();
    state.set(node, 'done');
    return undefined;
  };
  for (const node of edges.keys()) {
    const cycle = visit(node);
    if (cycle) return cycle;
  }
  return undefined;
}

describe('architecture', () => {
  it('finds the libraries and their sources', () => {
    expect(SOURCES.length).toBeGreaterThan(100);
    for (const lib of LIBS) expect(SOURCES.some((file) => file.lib === lib)).toBe(true);
  });

  it('has every library import only libraries below it', () => {
    const layerOf = new Map(LAYERS.flatMap((layer, index) => layer.map((lib) => [lib, index] as const)));
    const wrong: string[] = [];
    for (const file of SOURCES) {
      for (const [, specifier] of file.text.matchAll(IMPORT)) {
        if (!specifier.startsWith('#libs/')) continue;
        const target = specifier.slice('#libs/'.length);
        if (target === file.lib) wrong.push(`${relative(LIBS_DIR, file.path)} imports its own barrel ${specifier}`);
        else if (!layerOf.has(target)) wrong.push(`${relative(LIBS_DIR, file.path)} imports unknown ${specifier}`);
        else if (layerOf.get(target)! >= layerOf.get(file.lib)!)
          wrong.push(`${relative(LIBS_DIR, file.path)} (${file.lib}) imports ${specifier}`);
      }
    }
    expect(wrong).toEqual([]);
  });

  it.each(LIBS)('has no folder cycle inside %s', (lib) => {
    const edges = new Map<string, Set<string>>();
    for (const file of SOURCES.filter((source) => source.lib === lib)) {
      // The barrel re-exports every folder and is never imported from inside.
      if (file.path.endsWith(`${lib}/src/index.ts`)) continue;
      const from = folderOf(lib, file.path);
      for (const [, specifier] of file.text.matchAll(IMPORT)) {
        if (!specifier.startsWith('.')) continue;
        const to = folderOf(lib, resolve(dirname(file.path), specifier));
        if (to !== from) (edges.get(from) ?? edges.set(from, new Set()).get(from)!).add(to);
      }
    }
    expect(findCycle(edges)).toBeUndefined();
  });

  it.each(LIBS)('has no file cycle inside a folder of %s', (lib) => {
    const edges = new Map<string, Set<string>>();
    for (const file of SOURCES.filter((source) => source.lib === lib)) {
      const from = relative(LIBS_DIR, file.path);
      const targets = new Set<string>();
      for (const [, specifier] of file.text.matchAll(IMPORT)) {
        if (!specifier.startsWith('./')) continue;
        const target = resolve(dirname(file.path), specifier);
        const path = existsSync(`${target}.ts`) ? `${target}.ts` : join(target, 'index.ts');
        targets.add(relative(LIBS_DIR, path));
      }
      edges.set(from, targets);
    }
    expect(findCycle(edges)).toBeUndefined();
  });

  it('reports a cycle when there is one (the check can fail)', () => {
    const edges = new Map([
      ['a', new Set(['b'])],
      ['b', new Set(['c'])],
      ['c', new Set(['a'])],
    ]);
    expect(findCycle(edges)).toEqual(['a', 'b', 'c', 'a']);
  });
});
