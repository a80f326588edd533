import { Bm25ToolRanker } from './bm25-tool-ranker';
import { compareToolNames, uniqueToolsByName, type SearchableTool, type ToolSearchHit } from './searchable-tool';
import type { McpToolRanker, ToolRankerSearchOptions } from './tool-ranker';
import { ToolSearchMessages } from './tool-search.messages';
import { toolText } from './tool-text';

/**
 * Turns texts into vectors whose cosine similarity says how close their meanings are: a local
 * model or a hosted embeddings API, wrapped. It returns one vector per text, in order, all of
 * the same length.
 * @example
 * ```ts
 * const embedder: McpTextEmbedder = {
 *   embed: async (texts) => (await openai.embeddings.create({ model, input: texts })).data.map((d) => d.embedding),
 * };
 * ```
 */
export interface McpTextEmbedder {
  embed(texts: string[]): Promise<number[][]>;
}

/**
 * Options of {@link EmbeddingToolRanker}.
 * @example
 * ```ts
 * new EmbeddingToolRanker(embedder, { batchSize: 96, hybrid: true, fusionDepth: 30 });
 * ```
 */
export interface EmbeddingToolRankerOptions {
  /** Most texts sent in one `embed` call while indexing (APIs cap their batches). @default 64 */
  batchSize?: number;
  /**
   * Blend the semantic ranking with a lexical one by reciprocal-rank fusion: exact words (a tool
   * name, a field name) still count when the embedding misses them. `true` uses a
   * `Bm25ToolRanker`; a ranker given here is indexed along with this one.
   * @default false
   */
  hybrid?: boolean | McpToolRanker;
  /** The `k` of reciprocal-rank fusion: the higher, the less the very top ranks dominate. @default 60 */
  fusionK?: number;
  /** How many hits of each ranking are fused (at least the search's limit). @default 50 */
  fusionDepth?: number;
}

/** An indexed catalog: tool names in name order and their unit vectors, by tool text too (for re-indexing). */
interface EmbeddedCatalog {
  names: string[];
  vectors: Float32Array[];
  byText: Map<string, Float32Array>;
}

const EMPTY: EmbeddedCatalog = { names: [], vectors: [], byText: new Map() };

/**
 * Ranks tools by the cosine similarity of their text's embedding to the query's. `index()`
 * starts embedding at once (texts already embedded by the previous index are reused) and
 * returns; the first search waits for it. Tools with no similarity (cosine ≤ 0) are left out.
 * Each search embeds its query (one `embed` call). Give it as the `toolSearch.ranker` option
 * (in `McpModule.forRootAsync`'s factory when the embedder comes from the container).
 * @example
 * ```ts
 * const ranker = new EmbeddingToolRanker(embedder, { hybrid: true });
 * ranker.index(tools);
 * const hits = await ranker.search('who is on call tonight', { limit: 5 });
 * ```
 * @throws from `search`, when the embedder fails or returns vectors of the wrong count or length.
 */
export class EmbeddingToolRanker implements McpToolRanker {
  private readonly batchSize: number;
  private readonly lexical: McpToolRanker | undefined;
  private readonly fusionK: number;
  private readonly fusionDepth: number;
  private catalog: Promise<EmbeddedCatalog> = Promise.resolve(EMPTY);

  constructor(
    private readonly embedder: McpTextEmbedder,
    options: EmbeddingToolRankerOptions = {},
  ) {
    this.batchSize = Math.max(1, options.batchSize ?? 64);
    this.lexical = options.hybrid === true ? new Bm25ToolRanker() : options.hybrid || undefined;
    this.fusionK = options.fusionK ?? 60;
    this.fusionDepth = options.fusionDepth ?? 50;
  }

  /**
   * Replaces the index with these tools (a later tool with the same name wins) and starts
   * embedding the texts the previous index did not have; searches wait for it to finish.
   */
  index(tools: readonly SearchableTool[]): void {
    const sorted = uniqueToolsByName(tools);
    this.lexical?.index(sorted);
    const embedding = this.embedCatalog(sorted, this.catalog);
    // A failure surfaces in the searches that await it; unobserved, it must not crash the process.
    embedding.catch(() => undefined);
    this.catalog = embedding;
  }

  /** The best `limit` tools `filter` lets through, best first, ties in name order. */
  async search(query: string, { limit, filter }: ToolRankerSearchOptions): Promise<ToolSearchHit[]> {
    const wanted = Math.floor(limit);
    if (!(wanted > 0) || query.trim() === '') return [];
    const catalog = await this.latestCatalog();
    if (catalog.names.length === 0) return [];
    const depth = this.lexical ? Math.max(wanted, this.fusionDepth) : wanted;
    const semantic = await this.rank(catalog, query, depth, filter);
    if (!this.lexical) return semantic;
    const lexical = await this.lexical.search(query, { limit: depth, filter });
    return this.fuse([semantic, lexical], wanted);
  }

  /** The catalog of the latest `index()`, even if another one started while waiting. */
  private async latestCatalog(): Promise<EmbeddedCatalog> {
    let pending: Promise<EmbeddedCatalog>;
    let catalog: EmbeddedCatalog;
    do {
      pending = this.catalog;
      catalog = await pending;
    } while (pending !== this.catalog);
    return catalog;
  }

  private async embedCatalog(
    tools: readonly SearchableTool[],
    previous: Promise<EmbeddedCatalog>,
  ): Promise<EmbeddedCatalog> {
    const reusable = (await previous.catch(() => undefined))?.byText ?? EMPTY.byText;
    const texts = tools.map(toolText);
    const byText = new Map<string, Float32Array>();
    const missing = new Set<string>();
    for (const text of texts) {
      const known = reusable.get(text);
      if (known) byText.set(text, known);
      else missing.add(text);
    }
    const toEmbed = [...missing];
    for (let start = 0; start < toEmbed.length; start += this.batchSize) {
      const batch = toEmbed.slice(start, start + this.batchSize);
      const vectors = await this.embedVectors(batch);
      batch.forEach((text, at) => byText.set(text, vectors[at]));
    }
    const vectors = texts.map((text) => byText.get(text)!);
    const dimensions = new Set(vectors.map((vector) => vector.length));
    if (dimensions.size > 1) throw new Error(ToolSearchMessages.vectorLengths([...dimensions]));
    return { names: tools.map(({ name }) => name), vectors, byText };
  }

  /** The texts' embeddings as unit vectors (a zero vector stays zero). */
  private async embedVectors(texts: string[]): Promise<Float32Array[]> {
    const vectors = await this.embedder.embed(texts);
    if (!Array.isArray(vectors) || vectors.length !== texts.length) {
      throw new Error(
        ToolSearchMessages.vectorCount(Array.isArray(vectors) ? vectors.length : undefined, texts.length),
      );
    }
    return vectors.map((vector) => {
      const unit = Float32Array.from(vector);
      let squares = 0;
      for (const value of unit) squares += value * value;
      const norm = Math.sqrt(squares);
      if (norm > 0) for (let at = 0; at < unit.length; at++) unit[at] /= norm;
      return unit;
    });
  }

  /** The `wanted` visible tools most similar to the query, best first. */
  private async rank(
    catalog: EmbeddedCatalog,
    query: string,
    wanted: number,
    filter: ((name: string) => boolean) | undefined,
  ): Promise<ToolSearchHit[]> {
    const [target] = await this.embedVectors([query]);
    const length = catalog.vectors[0].length;
    if (target.length !== length) throw new Error(ToolSearchMessages.queryVectorLength(target.length, length));
    const similarities = catalog.vectors.map((vector) => {
      let dot = 0;
      for (let at = 0; at < length; at++) dot += vector[at] * target[at];
      return dot;
    });
    const ids = [...similarities.keys()].filter((id) => similarities[id] > 0);
    // Ids follow name order, so a lower id wins a tie.
    ids.sort((x, y) => similarities[y] - similarities[x] || x - y);
    const hits: ToolSearchHit[] = [];
    for (const id of ids) {
      if (hits.length === wanted) break;
      const name = catalog.names[id];
      if (!filter || filter(name)) hits.push({ name, score: similarities[id] });
    }
    return hits;
  }

  /** Reciprocal-rank fusion: each ranking adds 1 / (k + rank) to a tool; ties in name order. */
  private fuse(rankings: readonly ToolSearchHit[][], wanted: number): ToolSearchHit[] {
    const fused = new Map<string, number>();
    for (const ranking of rankings) {
      ranking.forEach(({ name }, rank) => fused.set(name, (fused.get(name) ?? 0) + 1 / (this.fusionK + rank + 1)));
    }
    return [...fused]
      .map(([name, score]) => ({ name, score }))
      .sort((x, y) => y.score - x.score || compareToolNames(x.name, y.name))
      .slice(0, wanted);
  }
}
