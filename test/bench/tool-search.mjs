// Tool search: how well and how fast Bm25ToolRanker finds tools, against a naive baseline (query words
// found as substrings of a tool's name and description, ranked by how many), on the labelled set of
// test/fixtures/tool-search (see its generate.mjs). Takes a few seconds:
//   node test/bench/tool-search.mjs
//
// So that no build is needed, libs/tool-search/src/rankers/*.ts is compiled here,
// file by file, to CommonJS in a temporary folder (with a node_modules link to the repository's, for
// what those files import from packages), then loaded from there. Nothing is built or installed.
//
// Env: TOOL_SEARCH_REPEAT  runs of each query for the latency figures (default 50)
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, '..', '..');
const sources = join(root, 'libs', 'tool-search', 'src', 'rankers');
const fixtures = join(root, 'test', 'fixtures', 'tool-search');
const REPEAT = Number(process.env.TOOL_SEARCH_REPEAT ?? 50);
const LIMIT = 10;

/** Compiles the search sources to CommonJS in a temporary folder and loads them. */
function loadSearch() {
  const out = mkdtempSync(join(tmpdir(), 'tool-search-'));
  process.on('exit', () => rmSync(out, { recursive: true, force: true }));
  symlinkSync(join(root, 'node_modules'), join(out, 'node_modules'), 'junction');
  mkdirSync(join(out, 'search'));
  const compilerOptions = {
    module: ts.ModuleKind.CommonJS,
    target: ts.ScriptTarget.ES2022,
    experimentalDecorators: true,
    emitDecoratorMetadata: true,
    esModuleInterop: true,
  };
  for (const file of readdirSync(sources).filter((name) => name.endsWith('.ts') && !name.endsWith('.spec.ts'))) {
    const { outputText } = ts.transpileModule(readFileSync(join(sources, file), 'utf8'), {
      compilerOptions,
      fileName: file,
    });
    writeFileSync(join(out, 'search', file.replace(/\.ts$/, '.js')), outputText);
  }
  const require = createRequire(join(out, 'search', 'index.js'));
  return require('./bm25-tool-ranker.js');
}

/** The naive baseline: how many query words occur in a tool's name and description, best first. */
class SubstringRanker {
  index(tools) {
    this.tools = tools.map(({ name, description }) => ({ name, text: `${name} ${description ?? ''}`.toLowerCase() }));
    this.tools.sort((x, y) => (x.name < y.name ? -1 : 1));
  }

  search(query, { limit, filter }) {
    const words = [...new Set(query.toLowerCase().split(/[^\p{L}\p{N}]+/u))].filter((word) => word.length > 1);
    const hits = [];
    for (const { name, text } of this.tools) {
      let score = 0;
      for (const word of words) if (text.includes(word)) score += 1;
      if (score > 0 && (!filter || filter(name))) hits.push({ name, score });
    }
    return hits.sort((x, y) => y.score - x.score).slice(0, limit);
  }
}

const percentile = (sorted, share) => sorted[Math.min(sorted.length - 1, Math.floor(share * sorted.length))];
const median = (values) =>
  percentile(
    [...values].sort((x, y) => x - y),
    0.5,
  );
const elapsedMs = (start) => Number(process.hrtime.bigint() - start) / 1e6;

function measure(ranker, catalog, queries) {
  const builds = [];
  for (let run = 0; run < 10; run++) {
    const start = process.hrtime.bigint();
    ranker.index(catalog);
    builds.push(elapsedMs(start));
  }

  const byKind = new Map();
  const totals = { top1: 0, top5: 0, share5: 0, reciprocal: 0 };
  for (const { query, relevant, kind } of queries) {
    const names = ranker.search(query, { limit: LIMIT }).map(({ name }) => name);
    const rank = names.findIndex((name) => relevant.includes(name)) + 1;
    const found = names.slice(0, 5).filter((name) => relevant.includes(name)).length;
    const scores = { top1: rank === 1, top5: rank >= 1 && rank <= 5, share5: found / relevant.length };
    scores.reciprocal = rank ? 1 / rank : 0;
    for (const key of Object.keys(totals)) totals[key] += Number(scores[key]);
    const kindTotals = byKind.get(kind) ?? { queries: 0, top5: 0 };
    byKind.set(kind, { queries: kindTotals.queries + 1, top5: kindTotals.top5 + Number(scores.top5) });
  }

  // Latency: every query REPEAT times, interleaved so that no query gets a warm cache of its own.
  const latencies = [];
  for (let run = 0; run < REPEAT; run++) {
    for (const { query } of queries) {
      const start = process.hrtime.bigint();
      ranker.search(query, { limit: LIMIT });
      latencies.push(Number(process.hrtime.bigint() - start) / 1e3);
    }
  }
  // The same with a filter that hides every other tool, as an authorization check would.
  const visible = new Set(catalog.filter((_, at) => at % 2 === 0).map(({ name }) => name));
  const filtered = [];
  for (const { query } of queries) {
    const start = process.hrtime.bigint();
    ranker.search(query, { limit: LIMIT, filter: (name) => visible.has(name) });
    filtered.push(Number(process.hrtime.bigint() - start) / 1e3);
  }
  latencies.sort((x, y) => x - y);
  filtered.sort((x, y) => x - y);
  const count = queries.length;
  return {
    'recall@1': totals.top1 / count,
    'recall@5': totals.top5 / count,
    'share@5': totals.share5 / count,
    'MRR@10': totals.reciprocal / count,
    'index ms (cold)': builds[0],
    'index ms (median)': median(builds.slice(1)),
    'p50 µs': percentile(latencies, 0.5),
    'p95 µs': percentile(latencies, 0.95),
    'p50 µs, filtered': percentile(filtered, 0.5),
    byKind,
  };
}

const catalog = JSON.parse(readFileSync(join(fixtures, 'catalog.json'), 'utf8'));
const queries = JSON.parse(readFileSync(join(fixtures, 'queries.json'), 'utf8'));
const { Bm25ToolRanker } = loadSearch();
const results = [
  ['Bm25ToolRanker', measure(new Bm25ToolRanker(), catalog, queries)],
  ['substring baseline', measure(new SubstringRanker(), catalog, queries)],
];

const format = (value) => (value < 1 ? value.toFixed(3) : value < 100 ? value.toFixed(1) : value.toFixed(0));
console.log(`Tool search: ${catalog.length} tools, ${queries.length} queries, each run ${REPEAT} times`);
console.log("(share@5: mean share of a query's relevant tools in its top 5; latency per search, limit 10)\n");
const columns = Object.keys(results[0][1]).filter((key) => key !== 'byKind');
console.table(
  Object.fromEntries(
    results.map(([name, row]) => [name, Object.fromEntries(columns.map((key) => [key, format(row[key])]))]),
  ),
);
const kinds = [...results[0][1].byKind.keys()];
console.log('recall@5 by kind of query:');
console.table(
  Object.fromEntries(
    results.map(([name, { byKind }]) => [
      name,
      Object.fromEntries(
        kinds.map((kind) => [
          `${kind} (${byKind.get(kind).queries})`,
          format(byKind.get(kind).top5 / byKind.get(kind).queries),
        ]),
      ),
    ]),
  ),
);
