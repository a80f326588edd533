import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { CallToolResult, Tool } from '@modelcontextprotocol/sdk/types.js';
import { runMcpCli, type CliIo } from 'nest-mcp-host/cli';
import { AppModule } from '../src/app.module';
import { startDeskHost, type DeskHost } from './support/desk-host';
import { connectHttpClient } from './support/fixture-app';

/** The desk's tools whose answers depend only on their arguments (no writes, no timestamps). */
const PURE_TOOLS = ['search_tickets', 'get_ticket', 'search_customers', 'get_customer'];
const SAMPLES_PER_TOOL = 25;
const WORDS = ['VAT', 'login', 'maria.lopez', 'tom.becker', 'printer', 'contoso', 'Acme', 'x'];

interface PropertySchema {
  type?: string;
  enum?: unknown[];
  pattern?: string;
  minimum?: number;
  maximum?: number;
  items?: PropertySchema;
}

/** A seeded generator, so a failing run repeats. */
function generator(seed: number) {
  let state = seed;
  const next = () => {
    state = (state * 1_103_515_245 + 12_345) % 2 ** 31;
    return state / 2 ** 31;
  };
  const int = (min: number, max: number) => min + Math.floor(next() * (max - min + 1));
  const pick = <T>(items: readonly T[]) => items[int(0, items.length - 1)];
  return { next, int, pick };
}

type Generator = ReturnType<typeof generator>;

/** A value the schema accepts (ids drawn around the seeded ones, so some exist and some do not). */
function valueOf(schema: PropertySchema, random: Generator): unknown {
  if (schema.enum) return random.pick(schema.enum);
  switch (schema.type) {
    case 'boolean':
      return random.next() < 0.5;
    case 'integer':
    case 'number':
      return random.int(schema.minimum ?? 1, Math.min(schema.maximum ?? 50, 50));
    case 'array': {
      const items = schema.items?.enum ?? WORDS;
      const chosen = items.filter(() => random.next() < 0.5);
      return chosen.length ? chosen : [items[0]];
    }
    default:
      if (schema.pattern?.startsWith('^T-')) return `T-${random.int(1995, 2025)}`;
      if (schema.pattern?.startsWith('^C-')) return `C-${random.int(1000, 1012)}`;
      return random.pick(WORDS);
  }
}

function argumentsFor(tool: Tool, random: Generator): Record<string, unknown> {
  const properties = (tool.inputSchema.properties ?? {}) as Record<string, PropertySchema>;
  const required = new Set(tool.inputSchema.required ?? []);
  const args: Record<string, unknown> = {};
  for (const [name, schema] of Object.entries(properties)) {
    if (required.has(name) || random.next() < 0.5) args[name] = valueOf(schema, random);
  }
  return args;
}

const kebab = (name: string) => name.replace(/([a-z0-9])([A-Z])/g, '$1-$2').toLowerCase();

/** The same arguments as a person types them: `--kebab-case value`, `--flag`/`--no-flag`, arrays as comma lists. */
function commandLineOf(args: Record<string, unknown>): string[] {
  return Object.entries(args).flatMap(([name, value]) => {
    const option = `--${kebab(name)}`;
    if (typeof value === 'boolean') return [value ? option : `--no-${kebab(name)}`];
    if (Array.isArray(value)) return [option, value.join(',')];
    return [option, String(value)];
  });
}

/** Runs the desk's CLI in this process (the runner `npm run -s desk` runs) and captures what it prints. */
async function cli(argv: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const io: CliIo = {
    stdout: { write: (text) => void (stdout += text), isTTY: false },
    stderr: { write: (text) => void (stderr += text), isTTY: false },
    stdin: new PassThrough(),
    ask: () => Promise.resolve(''),
  };
  const code = await runMcpCli(AppModule.register({ transport: 'cli' }), {
    name: 'desk',
    argv,
    io,
    exit: false,
  });
  return { code, stdout, stderr };
}

describe('the same tool answers identically over MCP and the CLI', () => {
  let desk: DeskHost;
  let client: Client;
  let tools: Tool[];
  const saved = { ...process.env };

  beforeAll(async () => {
    desk = await startDeskHost();
    client = await connectHttpClient(desk.url);
    tools = (await client.listTools()).tools.filter((tool) => PURE_TOOLS.includes(tool.name));
    // The CLI's runs (one after another) share an audit trail of their own.
    Object.assign(process.env, {
      AUDIT_FILE: join(mkdtempSync(join(tmpdir(), 'cli-equivalence-')), 'audit.jsonl'),
      AUTH_MODE: 'none',
    });
  });
  afterAll(async () => {
    process.env = saved;
    await client.close();
    await desk.close();
  });

  it('for generated arguments of every argument-only tool of the support desk', async () => {
    expect(tools.map((tool) => tool.name).sort()).toEqual([...PURE_TOOLS].sort());
    const random = generator(20261125);
    let failures = 0;
    for (const tool of tools) {
      for (let sample = 0; sample < SAMPLES_PER_TOOL; sample++) {
        const args = argumentsFor(tool, random);
        const viaMcp = (await client.callTool({ name: tool.name, arguments: args })) as CallToolResult;
        const argv = ['call', tool.name, ...commandLineOf(args), '--output', 'json'];
        const viaCli = await cli(argv);
        if (viaMcp.isError) failures++;
        // `--output json` prints the structured content, or the whole result when there is none.
        expect({ argv, answer: JSON.parse(viaCli.stdout) as unknown }).toEqual({
          argv,
          answer: viaMcp.structuredContent ?? viaMcp,
        });
        expect({ argv, code: viaCli.code }).toEqual({ argv, code: viaMcp.isError ? 1 : 0 });
      }
    }
    // The generated ids reach both tickets that exist and ones that do not.
    expect(failures).toBeGreaterThan(0);
    expect(failures).toBeLessThan(tools.length * SAMPLES_PER_TOOL);
  }, 120_000);
});
