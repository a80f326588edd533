import { EmbeddingToolRanker, type EmbeddingToolRankerOptions, type McpTextEmbedder } from './embedding-tool-ranker';
import type { SearchableTool, ToolSearchHit } from './searchable-tool';
import type { McpToolRanker, ToolRankerSearchOptions } from './tool-ranker';

const DIMENSIONS = 256;

/**
 * A deterministic stand-in for an embedding model: each word (lower-cased, a trailing "s"
 * dropped) adds 1 to a dimension picked by its FNV-1a hash. Texts that share words point the
 * same way; texts that share none are orthogonal (barring a hash collision, none here).
 */
class HashedEmbedder implements McpTextEmbedder {
  readonly calls: string[][] = [];

  /** @param blind words the "model" does not know (a rare identifier, say) */
  constructor(private readonly blind: readonly string[] = []) {}

  async embed(texts: string[]): Promise<number[][]> {
    this.calls.push(texts);
    return texts.map((text) => this.vector(text));
  }

  vector(text: string): number[] {
    const vector = new Array<number>(DIMENSIONS).fill(0);
    for (const raw of text.toLowerCase().match(/[a-z0-9]+/g) ?? []) {
      const word = raw.length > 3 ? raw.replace(/s$/, '') : raw;
      if (this.blind.includes(word)) continue;
      let hash = 0x811c9dc5;
      for (const char of word) hash = Math.imul(hash ^ char.charCodeAt(0), 0x01000193);
      vector[(hash >>> 0) % DIMENSIONS] += 1;
    }
    return vector;
  }
}

/** An embedder that answers only once released, to observe a search waiting for the index. */
class GatedEmbedder extends HashedEmbedder {
  private released = false;
  private readonly waiting: (() => void)[] = [];

  override async embed(texts: string[]): Promise<number[][]> {
    if (!this.released) await new Promise<void>((go) => this.waiting.push(go));
    return super.embed(texts);
  }

  release(): void {
    this.released = true;
    for (const go of this.waiting.splice(0)) go();
  }
}

const CATALOG: SearchableTool[] = [
  { name: 'stripe_refund_payment', description: 'Refund a payment to the customer card.' },
  { name: 'stripe_list_invoices', description: 'List the invoices of a customer.' },
  { name: 'github_create_issue', description: 'Open a new issue in a repository.' },
  { name: 'github_merge_pull_request', description: 'Merge a pull request into its base branch.' },
  { name: 'slack_post_message', description: 'Post a message to a channel.' },
  { name: 'calendar_create_event', description: 'Schedule a meeting with attendees.' },
];

const names = (hits: ToolSearchHit[]) => hits.map(({ name }) => name);

function indexed(tools = CATALOG, embedder = new HashedEmbedder(), options: EmbeddingToolRankerOptions = {}) {
  const ranker = new EmbeddingToolRanker(embedder, options);
  ranker.index(tools);
  return { ranker, embedder };
}

describe('EmbeddingToolRanker', () => {
  describe('ranking', () => {
    it.each([
      ['refund the payment of a customer', 'stripe_refund_payment'],
      ['merge this pull request', 'github_merge_pull_request'],
      ['schedule a meeting', 'calendar_create_event'],
    ])('finds "%s" first', async (query, expected) => {
      const { ranker } = indexed();
      expect(names(await ranker.search(query, { limit: 3 }))[0]).toBe(expected);
    });

    it('scores by cosine similarity, best first', async () => {
      const { ranker } = indexed();
      const hits = await ranker.search('post a message to a channel', { limit: 2 });
      expect(hits[0].name).toBe('slack_post_message');
      expect(hits[0].score).toBeGreaterThan(0.5);
      expect(hits[0].score).toBeLessThanOrEqual(1 + 1e-6);
      if (hits[1]) expect(hits[1].score).toBeLessThan(hits[0].score);
    });

    it('leaves out the tools with no similarity at all', async () => {
      const { ranker } = indexed();
      expect(await ranker.search('xylophone', { limit: 5 })).toEqual([]);
    });

    it('breaks ties by name', async () => {
      const same: McpTextEmbedder = { embed: async (texts) => texts.map(() => [1, 0]) };
      const ranker = new EmbeddingToolRanker(same);
      ranker.index([{ name: 'b' }, { name: 'c' }, { name: 'a' }]);
      const hits = await ranker.search('anything', { limit: 3 });
      expect(names(hits)).toEqual(['a', 'b', 'c']);
      expect(new Set(hits.map(({ score }) => score)).size).toBe(1);
      expect(await ranker.search('anything', { limit: 3 })).toEqual(hits);
    });
  });

  describe('filter', () => {
    it('never returns a hidden tool, and fills the limit from the visible ones', async () => {
      const { ranker } = indexed();
      const all = names(await ranker.search('create a customer issue or event', { limit: 6 }));
      const hidden = new Set(all.slice(0, 2));
      const visible = await ranker.search('create a customer issue or event', {
        limit: 2,
        filter: (name) => !hidden.has(name),
      });
      expect(names(visible)).toEqual(all.filter((name) => !hidden.has(name)).slice(0, 2));
    });
  });

  describe('indexing', () => {
    it('makes a search wait for the embeddings of the latest index', async () => {
      const embedder = new GatedEmbedder();
      const ranker = new EmbeddingToolRanker(embedder);
      ranker.index(CATALOG.slice(0, 2));
      ranker.index(CATALOG.slice(2));
      let settled = false;
      const search = ranker.search('merge a pull request', { limit: 1 }).finally(() => (settled = true));
      await new Promise((resolve) => setImmediate(resolve));
      expect(settled).toBe(false);
      embedder.release();
      expect(names(await search)).toEqual(['github_merge_pull_request']);
      expect(names(await ranker.search('refund a payment', { limit: 5 }))).not.toContain('stripe_refund_payment');
    });

    it('sends the texts in batches of batchSize', async () => {
      const { ranker, embedder } = indexed(CATALOG, new HashedEmbedder(), { batchSize: 4 });
      await ranker.search('payment', { limit: 1 });
      expect(embedder.calls.map((batch) => batch.length)).toEqual([4, 2, 1]);
    });

    it('embeds again only the tools whose text changed', async () => {
      const { ranker, embedder } = indexed();
      await ranker.search('payment', { limit: 1 });
      const changed = { name: 'slack_post_message', description: 'Post a message to a channel or a thread.' };
      ranker.index([...CATALOG.filter(({ name }) => name !== changed.name), changed]);
      await ranker.search('thread', { limit: 1 });
      expect(embedder.calls.slice(2)).toEqual([[expect.stringContaining('or a thread')], ['thread']]);
    });

    it('replaces the previous index', async () => {
      const { ranker } = indexed();
      ranker.index([{ name: 'hr_request_leave', description: 'Request vacation days.' }]);
      expect(names(await ranker.search('refund a payment', { limit: 5 }))).toEqual([]);
      expect(names(await ranker.search('vacation', { limit: 5 }))).toEqual(['hr_request_leave']);
    });
  });

  describe('edge cases', () => {
    it('returns nothing, without asking the embedder, for an empty query or limit', async () => {
      const { ranker, embedder } = indexed();
      expect(await ranker.search('  ', { limit: 5 })).toEqual([]);
      expect(await ranker.search('payment', { limit: 0 })).toEqual([]);
      expect(embedder.calls.flat()).not.toContain('  ');
      expect(embedder.calls.flat()).not.toContain('payment');
    });

    it('returns nothing from an empty catalog, or before any index', async () => {
      const embedder = new HashedEmbedder();
      expect(await new EmbeddingToolRanker(embedder).search('payment', { limit: 5 })).toEqual([]);
      const { ranker } = indexed([], embedder);
      expect(await ranker.search('payment', { limit: 5 })).toEqual([]);
      expect(embedder.calls).toEqual([]);
    });
  });

  describe('a misbehaving embedder', () => {
    it('fails the search with a message that says what is wrong', async () => {
      const short: McpTextEmbedder = { embed: async (texts) => texts.slice(1).map(() => [1]) };
      const ranker = new EmbeddingToolRanker(short);
      ranker.index(CATALOG);
      await expect(ranker.search('payment', { limit: 1 })).rejects.toThrow(
        'The text embedder returned 5 vectors for 6 texts; it must return one vector per text, in order.',
      );
    });

    it('refuses vectors of different lengths', async () => {
      const ragged: McpTextEmbedder = { embed: async (texts) => texts.map((_, at) => (at === 0 ? [1, 0] : [1])) };
      const ranker = new EmbeddingToolRanker(ragged);
      ranker.index(CATALOG.slice(0, 2));
      await expect(ranker.search('payment', { limit: 1 })).rejects.toThrow('vectors of different lengths (2, 1)');
    });

    it('refuses a query vector of another length than the tools', async () => {
      let length = 3;
      const changing: McpTextEmbedder = { embed: async (texts) => texts.map(() => new Array(length).fill(1)) };
      const ranker = new EmbeddingToolRanker(changing);
      ranker.index(CATALOG);
      await ranker.search('payment', { limit: 1 });
      length = 4;
      await expect(ranker.search('payment', { limit: 1 })).rejects.toThrow('query vector of length 4');
    });

    it('recovers at the next index once the embedder works again', async () => {
      let failing = true;
      const hashed = new HashedEmbedder();
      const flaky: McpTextEmbedder = {
        embed: async (texts) => {
          if (failing) throw new Error('embeddings API down');
          return hashed.embed(texts);
        },
      };
      const ranker = new EmbeddingToolRanker(flaky);
      ranker.index(CATALOG);
      await expect(ranker.search('payment', { limit: 1 })).rejects.toThrow('embeddings API down');
      failing = false;
      ranker.index(CATALOG);
      expect(names(await ranker.search('refund a payment', { limit: 1 }))).toEqual(['stripe_refund_payment']);
    });
  });

  describe('hybrid', () => {
    const tools: SearchableTool[] = [
      { name: 'storage_upload_file', description: 'Upload a file to storage.' },
      { name: 's3_put_object', description: 'Store an object in a bucket.' },
      { name: 'drive_share_file', description: 'Share a file with a colleague.' },
    ];

    it('finds by exact words what the embedding misses', async () => {
      // The "model" does not know "s3": alone, it cannot find s3_put_object.
      const semantic = indexed(tools, new HashedEmbedder(['s3']));
      expect(names(await semantic.ranker.search('s3 upload', { limit: 3 }))).toEqual(['storage_upload_file']);

      const hybrid = indexed(tools, new HashedEmbedder(['s3']), { hybrid: true });
      const hits = await hybrid.ranker.search('s3 upload', { limit: 3 });
      expect(names(hits).sort()).toEqual(['s3_put_object', 'storage_upload_file']);
      // Reciprocal-rank fusion (k = 60): first semantically and second lexically, 1/61 + 1/62.
      expect(hits.find(({ name }) => name === 'storage_upload_file')?.score).toBeCloseTo(1 / 61 + 1 / 62, 10);
    });

    it('indexes a given lexical ranker with the same tools, and passes it the filter', async () => {
      const calls: { tools?: readonly SearchableTool[]; options?: ToolRankerSearchOptions } = {};
      const lexical: McpToolRanker = {
        index: (indexedTools) => {
          calls.tools = indexedTools;
        },
        search: (_query, options) => {
          calls.options = options;
          return [{ name: 'drive_share_file', score: 1 }];
        },
      };
      const filter = (name: string) => name !== 's3_put_object';
      const { ranker } = indexed(tools, new HashedEmbedder(), { hybrid: lexical, fusionDepth: 7 });
      const hits = await ranker.search('upload a file', { limit: 2, filter });
      expect(calls.tools?.map(({ name }) => name)).toEqual([
        'drive_share_file',
        's3_put_object',
        'storage_upload_file',
      ]);
      expect(calls.options).toEqual({ limit: 7, filter });
      // drive_share_file: second semantically and first lexically; storage_upload_file: first semantically only.
      expect(names(hits)).toEqual(['drive_share_file', 'storage_upload_file']);
    });
  });
});
