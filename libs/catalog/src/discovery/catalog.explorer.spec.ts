import { Injectable } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { z } from 'zod';
import { IsString } from 'class-validator';
import {
  McpArgs,
  McpCompletion,
  McpContext,
  McpHeader,
  McpPrompt,
  McpResource,
  McpResourceTemplate,
  McpStartupError,
  McpTool,
  type McpCallContext,
} from '#libs/core';
import { CatalogModule } from '../catalog.module';
import { ToolRegistry } from '../tools/tool.registry';

class NameDto {
  @IsString()
  name!: string;
}

@Injectable()
class BrokenTools {
  @McpTool({ name: 'lookup', description: 'first' })
  one() {}

  @McpTool({ name: 'lookup', description: 'second' })
  two() {}

  @McpTool({ name: 'has spaces', description: 'bad name' })
  three() {}

  @McpTool({ description: 'two schemas', input: z.object({ name: z.string() }) })
  four(@McpArgs() _dto: NameDto) {}

  @McpTool({ description: 'no schema' })
  five(@McpArgs() _args: Record<string, unknown>) {}

  @McpTool({ description: 'unbound parameter' })
  six(_what: string, @McpContext() _ctx: McpCallContext) {}

  @McpTool({ description: 'primitive args' })
  seven(@McpArgs() _value: string) {}

  @McpTool({ description: 'not an object schema', input: z.string() })
  eight(@McpArgs() _value: unknown) {}
}

@Injectable()
class GoodTools {
  @McpTool({ description: 'Greets', input: z.object({ name: z.string() }) })
  greet(@McpArgs() _args: { name: string }) {}

  @McpTool({ description: 'Uses a DTO' })
  named(@McpArgs() _dto: NameDto, @McpContext() _ctx: McpCallContext) {}
}

describe('CatalogExplorer start-up diagnostics', () => {
  it('reports every problem at once, naming Class.method and the fix', async () => {
    const moduleRef = await Test.createTestingModule({ imports: [CatalogModule], providers: [BrokenTools] }).compile();
    const error = await moduleRef.init().then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(McpStartupError);
    const found = (error as McpStartupError).diagnostics.map((d) => `${d.where}: ${d.problem}`);
    expect(found).toEqual([
      'BrokenTools.four: the input schema is given twice: by @McpTool({ input }) and by the @McpArgs() parameter type NameDto',
      'BrokenTools.five: @McpArgs() receives the arguments but there is no input schema to validate them',
      'BrokenTools.six: parameter #0 is not bound to anything the host can supply',
      'BrokenTools.seven: @McpArgs() receives the whole arguments object but the parameter is typed String',
      'BrokenTools.seven: @McpArgs() receives the arguments but there is no input schema to validate them',
      'BrokenTools.eight: the input schema must describe an object (MCP requires "type": "object")',
      'BrokenTools.three: tool name "has spaces" is outside the spec\'s guidance (1–128 characters of A-Z a-z 0-9 _ - .)',
      'BrokenTools.two: tool name "lookup" is already used by BrokenTools.one',
    ]);
  });

  it('says how to fix each problem', async () => {
    const moduleRef = await Test.createTestingModule({ imports: [CatalogModule], providers: [BrokenTools] }).compile();
    const error = (await moduleRef.init().then(
      () => undefined,
      (e: unknown) => e,
    )) as McpStartupError;
    expect(error.message).toMatch(/^MCP host cannot start: 8 problem\(s\) found\n/);
    expect(error.message).toContain("fix: rename it, e.g. @McpTool({ name: 'has_spaces' })");
    expect(error.message).toContain('fix: decorate it with @McpArgs() or @McpContext(), or remove it');
  });

  it('registers valid tools with their JSON Schemas', async () => {
    const moduleRef = await Test.createTestingModule({ imports: [CatalogModule], providers: [GoodTools] }).compile();
    await moduleRef.init();
    const registry = moduleRef.get(ToolRegistry);
    expect(registry.get('greet')!.definition.inputSchema).toEqual({
      type: 'object',
      properties: { name: { type: 'string' } },
      required: ['name'],
    });
    expect(registry.get('named')!.definition.inputSchema).toMatchObject({
      properties: { name: { type: 'string' } },
      required: ['name'],
    });
    await moduleRef.close();
  });
});

/** Two providers from two feature modules, each with its own DTO class called `FilterDto`. */
function toolsWithOwnFilterDto(field: string) {
  class FilterDto {
    @IsString()
    [field]!: string;
  }
  @Injectable()
  class FeatureTools {
    @McpTool({ name: `search_${field}`, description: `Searches by ${field}` })
    search(@McpArgs() _filter: FilterDto) {}
  }
  return FeatureTools;
}

describe('CatalogExplorer with DTO classes of the same name', () => {
  it('publishes each tool with its own class schema', async () => {
    const moduleRef = await Test.createTestingModule({
      imports: [CatalogModule],
      providers: [toolsWithOwnFilterDto('customer'), toolsWithOwnFilterDto('ticket')],
    }).compile();
    await moduleRef.init();
    const registry = moduleRef.get(ToolRegistry);
    expect(Object.keys(registry.get('search_customer')!.definition.inputSchema.properties!)).toEqual(['customer']);
    expect(Object.keys(registry.get('search_ticket')!.definition.inputSchema.properties!)).toEqual(['ticket']);
  });
});

describe('CatalogExplorer with prompts, resources and completions', () => {
  it('reports ambiguous templates, bad URIs and dangling completions at start-up', async () => {
    @Injectable()
    class BrokenContent {
      @McpResource({ uri: 'not a uri', name: 'bad' })
      bad() {}

      @McpResourceTemplate({ uriTemplate: 'kb://articles/{slug}', name: 'a' })
      a(@McpArgs() _vars: object) {}

      @McpResourceTemplate({ uriTemplate: 'kb://articles/{id}', name: 'b' })
      b(@McpArgs() _vars: object) {}

      @McpResourceTemplate({ uriTemplate: 'kb://{?q}', name: 'c' })
      c() {}

      @McpPrompt({ description: 'args nobody receives', args: [{ name: 'x' }] })
      p() {}

      @McpCompletion({ prompt: 'missing', argument: 'x' })
      complete() {
        return [];
      }
    }
    const moduleRef = await Test.createTestingModule({
      imports: [CatalogModule],
      providers: [BrokenContent],
    }).compile();
    const error = (await moduleRef.init().then(
      () => undefined,
      (e: unknown) => e,
    )) as McpStartupError;
    expect(error.diagnostics.map((d) => `${d.where}: ${d.problem}`)).toEqual([
      'BrokenContent.bad: "not a uri" is not an absolute URI',
      'BrokenContent.c: the URI template is invalid: "{?q}" needs RFC 6570 level 3 or 4; only levels 1–2 are supported',
      'BrokenContent.p: the prompt declares arguments but no @McpArgs() parameter receives them',
      'BrokenContent.complete: @McpCompletion names prompt "missing", which does not exist',
      'BrokenContent.b: URI template "kb://articles/{id}" matches the same URIs as "kb://articles/{slug}" (BrokenContent.a)',
    ]);
  });
});

describe('CatalogExplorer with caching hints', () => {
  it('keeps each entry’s cache option, and reports a bad one on every kind of entry at start-up', async () => {
    @Injectable()
    class Cached {
      @McpTool({ description: 'cached', cache: { ttlMs: 60_000, scope: 'public' } })
      fine() {}

      @McpTool({ description: 'negative', cache: { ttlMs: -1 } })
      tool() {}

      @McpPrompt({ description: 'shared', cache: { ttlMs: 1, scope: 'shared' as 'public' } })
      prompt() {}

      @McpResource({ uri: 'kb://a', name: 'a', cache: 60 as never })
      resource() {}

      @McpResourceTemplate({ uriTemplate: 'kb://t/{id}', name: 't', cache: { ttlMs: 1.5 } })
      template(@McpArgs() _vars: object) {}
    }
    const failing = await Test.createTestingModule({ imports: [CatalogModule], providers: [Cached] }).compile();
    const error = (await failing.init().then(
      () => undefined,
      (e: unknown) => e,
    )) as McpStartupError;
    expect(error.diagnostics.map((d) => `${d.where}: ${d.problem}`)).toEqual([
      'Cached.tool: cache: ttlMs must be an integer ≥ 0 (milliseconds), got -1',
      `Cached.prompt: cache: scope must be 'public' or 'private', got "shared"`,
      'Cached.resource: cache: must be an object { ttlMs, scope }, got 60',
      'Cached.template: cache: ttlMs must be an integer ≥ 0 (milliseconds), got 1.5',
    ]);

    @Injectable()
    class Fine {
      @McpTool({ description: 'cached', cache: { ttlMs: 60_000, scope: 'public' } })
      fine() {}
    }
    const moduleRef = await Test.createTestingModule({ imports: [CatalogModule], providers: [Fine] }).compile();
    await moduleRef.init();
    expect(moduleRef.get(ToolRegistry).get('fine')!.cache).toEqual({ ttlMs: 60_000, scope: 'public' });
    await moduleRef.close();
  });
});

describe('CatalogExplorer with x-mcp-header parameters', () => {
  class QueryDto {
    @McpHeader('Region')
    @IsString()
    region!: string;

    @IsString()
    query!: string;
  }

  @Injectable()
  class HeaderTools {
    @McpTool({ description: 'DTO' })
    dto(@McpArgs() _args: QueryDto) {}

    @McpTool({
      description: 'zod',
      input: z.object({ region: z.string().meta({ 'x-mcp-header': 'Region' }), query: z.string() }),
    })
    zod(@McpArgs() _args: object) {}

    @McpTool({
      description: 'JSON Schema',
      input: { type: 'object', properties: { region: { type: 'string', 'x-mcp-header': 'Region' } } },
    })
    json(@McpArgs() _args: object) {}
  }

  it('publishes the keyword and knows the parameter, whichever way the schema is written', async () => {
    const moduleRef = await Test.createTestingModule({ imports: [CatalogModule], providers: [HeaderTools] }).compile();
    await moduleRef.init();
    const registry = moduleRef.get(ToolRegistry);
    for (const name of ['dto', 'zod', 'json']) {
      const tool = registry.get(name)!;
      expect(tool.definition.inputSchema.properties!.region).toMatchObject({
        type: 'string',
        'x-mcp-header': 'Region',
      });
      expect(tool.headerParams).toEqual([{ header: 'Region', path: ['region'], type: 'string' }]);
    }
    await moduleRef.close();
  });

  it('refuses to start with a tool whose x-mcp-header a client would reject', async () => {
    @Injectable()
    class BadHeader {
      @McpTool({
        description: 'number header',
        input: { type: 'object', properties: { ratio: { type: 'number', 'x-mcp-header': 'Ratio' } } },
      })
      ratio(@McpArgs() _args: object) {}
    }
    const moduleRef = await Test.createTestingModule({ imports: [CatalogModule], providers: [BadHeader] }).compile();
    const error = (await moduleRef.init().then(
      () => undefined,
      (e: unknown) => e,
    )) as McpStartupError;
    expect(error.diagnostics.map((d) => `${d.where}: ${d.problem}`)).toEqual([
      'BadHeader.ratio: "ratio" has "x-mcp-header" but its type is "number"; only string, integer and boolean parameters can be headers',
    ]);
  });
});
