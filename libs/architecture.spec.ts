import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import * as ts from 'typescript';

/**
 * The architecture, checked: libraries depend on each other in one direction (the order below,
 * docs/architecture.md draws it), inside each library no two folders import each other, directly
 * or around a loop, and inside each folder no two files do (type imports count: a type two files
 * share lives in the file it belongs to, not in one of the two). The cluster library is loaded by
 * one file only, the shared-state factory, and the HTTP transport knows nothing of it. A new
 * import that breaks any of these fails here with the path it took.
 */
const LAYERS: readonly (readonly string[])[] = [
  ['core'],
  ['security', 'catalog'],
  ['invocation', 'governance', 'authorization-server'],
  ['protocol', 'downstream-identity'],
  ['tools', 'prompts', 'resources', 'tool-search', 'apps'],
  ['operations', 'rest'],
  // The cluster implements interfaces of the libraries below it; only hosting's factory loads it.
  ['gateway', 'cluster'],
  // Upstreams managed at run time, applied through the gateway.
  ['virtual-servers'],
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
/** The package entries, which pick the public API out of the libraries. */
const ENTRIES: SourceFile[] = ['index.ts', 'redis.ts', 'postgres.ts', 'cli.ts'].map((name) => {
  const path = join(LIBS_DIR, name);
  return { lib: '.', path, text: readFileSync(path, 'utf8') };
});

/** The one library file outside the cluster library that loads it: the factory that chooses the shared state. */
const CLUSTER_LOADER = join(LIBS_DIR, 'hosting', 'src', 'shared-state', 'shared-state.providers.ts');
/** ...and the package entry of its Redis backplane, which an application imports to set the option. */
const REDIS_ENTRY = join(LIBS_DIR, 'redis.ts');
/** The HTTP transport, which must not know whether there is a cluster. */
const HTTP_TRANSPORT = join(LIBS_DIR, 'hosting', 'src', 'http') + sep;
const CLUSTER_DIR = join(LIBS_DIR, 'cluster') + sep;

/** An import of the cluster library by a file: where, and whether it only names types (erased from the build). */
interface ClusterImport {
  line: number;
  typeOnly: boolean;
}

/** Whether `specifier`, imported by the file at `path`, is the cluster library (its alias or one of its files). */
function isCluster(path: string, specifier: string): boolean {
  if (specifier === '#libs/cluster') return true;
  return specifier.startsWith('.') && resolve(dirname(path), specifier).startsWith(CLUSTER_DIR);
}

/** Every import of the cluster library in `file`: `import`, `export … from`, `require(…)`, `import(…)`, `import('…')` types. */
function clusterImportsOf(file: SourceFile): ClusterImport[] {
  const source = ts.createSourceFile(file.path, file.text, ts.ScriptTarget.ES2023, true);
  const found: ClusterImport[] = [];
  const add = (node: ts.Node, specifier: ts.Node | undefined, typeOnly: boolean) => {
    if (specifier && ts.isStringLiteral(specifier) && isCluster(file.path, specifier.text))
      found.push({ line: source.getLineAndCharacterOfPosition(node.getStart()).line + 1, typeOnly });
  };
  const visit = (node: ts.Node) => {
    if (ts.isImportDeclaration(node)) {
      const clause = node.importClause;
      const named = clause?.namedBindings;
      const allTypes =
        clause !== undefined &&
        (clause.isTypeOnly ||
          (clause.name === undefined &&
            named !== undefined &&
            ts.isNamedImports(named) &&
            named.elements.every((element) => element.isTypeOnly)));
      add(node, node.moduleSpecifier, allTypes);
    } else if (ts.isExportDeclaration(node)) {
      const named = node.exportClause;
      const allTypes =
        node.isTypeOnly ||
        (named !== undefined && ts.isNamedExports(named) && named.elements.every((element) => element.isTypeOnly));
      add(node, node.moduleSpecifier, allTypes);
    } else if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument)) {
      add(node, node.argument.literal, true);
    } else if (
      ts.isCallExpression(node) &&
      (node.expression.kind === ts.SyntaxKind.ImportKeyword ||
        (ts.isIdentifier(node.expression) && node.expression.text === 'require'))
    ) {
      add(node, node.arguments[0], false);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

/**
 * The imports of the cluster library that break its two rules: outside the library only the
 * factory loads it (and `nest-mcp-host/redis`, its backplane; others, the root entry included,
 * may name its types, which the build erases), and the HTTP transport does not import it at all.
 */
function clusterRuleBreaches(files: readonly SourceFile[]): string[] {
  const wrong: string[] = [];
  for (const file of files) {
    if (file.path.startsWith(CLUSTER_DIR)) continue;
    for (const { line, typeOnly } of clusterImportsOf(file)) {
      const where = `${relative(LIBS_DIR, file.path)}:${line}`;
      if (file.path.startsWith(HTTP_TRANSPORT)) wrong.push(`${where}: the HTTP transport imports the cluster library`);
      else if (!typeOnly && file.path !== CLUSTER_LOADER && file.path !== REDIS_ENTRY)
        wrong.push(`${where}: loads the cluster library (only ${relative(LIBS_DIR, CLUSTER_LOADER)} may)`);
    }
  }
  return wrong;
}

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

  it('has the cluster library loaded by the shared-state factory alone, and not imported by the HTTP transport', () => {
    // The check sees the factory's own import (it can find one).
    expect(clusterImportsOf(SOURCES.find((file) => file.path === CLUSTER_LOADER)!)).toContainEqual(
      expect.objectContaining({ typeOnly: false }),
    );
    expect(clusterRuleBreaches([...SOURCES, ...ENTRIES])).toEqual([]);
  });

  it('reports an import of the cluster library that breaks its rules (the check can fail)', () => {
    const file = (path: string, text: string): SourceFile => ({
      lib: path.split('/')[0],
      path: join(LIBS_DIR, path),
      text,
    });
    expect(
      clusterRuleBreaches([
        file('protocol/src/sessions/a.ts', "import { McpCluster } from '#libs/cluster';"),
        file('protocol/src/sessions/b.ts', "import type { McpCluster } from '#libs/cluster';"),
        file('protocol/src/sessions/c.ts', "import { type McpCluster } from '#libs/cluster';"),
        file('operations/src/d.ts', "const { McpCluster } = require('../../cluster/src/replicas/mcp-cluster');"),
        file('hosting/src/http/e.ts', "import type { McpCluster } from '#libs/cluster';"),
        file('hosting/src/f.ts', "export { McpCluster } from '#libs/cluster';"),
        file('hosting/src/g.ts', "let c: typeof import('#libs/cluster');"),
      ]),
    ).toEqual([
      'protocol/src/sessions/a.ts:1: loads the cluster library (only hosting/src/shared-state/shared-state.providers.ts may)',
      'operations/src/d.ts:1: loads the cluster library (only hosting/src/shared-state/shared-state.providers.ts may)',
      'hosting/src/http/e.ts:1: the HTTP transport imports the cluster library',
      'hosting/src/f.ts:1: loads the cluster library (only hosting/src/shared-state/shared-state.providers.ts may)',
    ]);
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
