import 'reflect-metadata';
import { Injectable, Module, type INestApplication } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { IsString } from 'class-validator';
import { z } from 'zod';
import { McpArgs, McpTool } from '#libs/core';
import { McpModule } from '#libs/hosting';
import { CapturingLogger } from './support/capturing-logger';
import { connectHttpClient } from './support/fixture-app';

class NoteDto {
  @IsString() text!: string;
}

/** Declares `constructor`, `__proto__` and `hasOwnProperty` (JSON text: a literal would set a prototype). */
const NAMED_SCHEMA = JSON.parse(
  '{"type":"object","properties":{"constructor":{"type":"integer"},' +
    '"__proto__":{"type":"object","properties":{"admin":{"type":"boolean"}}},"hasOwnProperty":{"type":"string"}}}',
) as Record<string, unknown>;

@Injectable()
class NamedArgumentTools {
  @McpTool({ description: 'Saves a note (a DTO that declares none of those names)' })
  save_note(@McpArgs() { text }: NoteDto) {
    return `saved ${text}`;
  }

  @McpTool({
    description: 'Labels a value (zod, optional toString and valueOf)',
    input: z.object({ label: z.string(), toString: z.string().optional(), valueOf: z.number().optional() }),
  })
  label_value(@McpArgs() args: Record<string, unknown>) {
    return JSON.stringify(args);
  }

  @McpTool({ description: 'Echoes its named arguments (JSON Schema)', input: NAMED_SCHEMA })
  echo_names(
    @McpArgs('constructor') constructor: unknown,
    @McpArgs('__proto__') proto: unknown,
    @McpArgs('hasOwnProperty') hasOwn: unknown,
  ) {
    return JSON.stringify({ constructor: constructor ?? null, proto: proto ?? null, hasOwn: hasOwn ?? null });
  }
}

@Module({
  imports: [McpModule.forRoot({ name: 'argument-names', version: '1.0.0', audit: false })],
  providers: [NamedArgumentTools],
})
class ArgumentNamesModule {}

describe('arguments named like members of every object (constructor, __proto__, toString …) over HTTP', () => {
  const logger = new CapturingLogger();
  let app: INestApplication;
  let url: string;
  let client: Client;
  let headers: Record<string, string>;

  beforeAll(async () => {
    const moduleRef = await Test.createTestingModule({ imports: [ArgumentNamesModule] }).compile();
    app = moduleRef.createNestApplication({ logger });
    await app.listen(0, '127.0.0.1');
    url = `${(await app.getUrl()).replace('[::1]', '127.0.0.1')}/mcp`;
    client = await connectHttpClient(url);
    headers = {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2025-11-25',
      'mcp-session-id': (client.transport as unknown as { sessionId: string }).sessionId,
    };
  });
  afterAll(async () => {
    await client?.close();
    await app?.close();
  });

  /** Calls `tool` with `args` sent as this very JSON text; resolves to the JSON-RPC answer. */
  async function call(tool: string, args: string): Promise<Record<string, unknown>> {
    const response = await fetch(url, {
      method: 'POST',
      headers,
      body: `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"${tool}","arguments":${args}}}`,
    });
    expect(response.status).toBe(200);
    return (await response.json()) as Record<string, unknown>;
  }
  const text = (value: string, isError?: true) => ({
    jsonrpc: '2.0',
    id: 7,
    result: { content: [{ type: 'text', text: value }], ...(isError && { isError }) },
  });

  it.each([
    ['{"text":"a","constructor":1}', 'constructor'],
    ['{"text":"a","__proto__":{"admin":true}}', '__proto__'],
    ['{"text":"a","toString":"x"}', 'toString'],
    ['{"text":"a","valueOf":1,"hasOwnProperty":2}', 'valueOf'],
  ])('refuses an undeclared %s by name, as any undeclared argument', async (args, name) => {
    const answer = await call('save_note', args);
    expect(answer).toEqual(
      text(
        `Invalid arguments for tool "save_note":\n- ${name}: is not an accepted argument (accepted: text)` +
          (name === 'valueOf' ? '\n- hasOwnProperty: is not an accepted argument (accepted: text)' : ''),
        true,
      ),
    );
  });

  it('binds declared ones normally, and one not sent is absent (not Object’s method)', async () => {
    expect(await call('label_value', '{"label":"x"}')).toEqual(text('{"label":"x"}'));
    expect(await call('label_value', '{"label":"x","toString":"y","valueOf":2}')).toEqual(
      text('{"label":"x","toString":"y","valueOf":2}'),
    );
    expect(await call('echo_names', '{}')).toEqual(text('{"constructor":null,"proto":null,"hasOwn":null}'));
    expect(await call('echo_names', '{"constructor":2,"__proto__":{"admin":true},"hasOwnProperty":"yes"}')).toEqual(
      text('{"constructor":2,"proto":{"admin":true},"hasOwn":"yes"}'),
    );
    // Validated like any argument, and nothing leaks into other objects.
    expect(await call('echo_names', '{"constructor":"two"}')).toEqual(
      text('Invalid arguments for tool "echo_names":\n- constructor: must be integer', true),
    );
    expect(({} as Record<string, unknown>).admin).toBeUndefined();
  });

  it('logs no ERROR line and keeps serving', async () => {
    expect(logger.at('error')).toEqual([]);
    expect(await client.callTool({ name: 'save_note', arguments: { text: 'still here' } })).toEqual({
      content: [{ type: 'text', text: 'saved still here' }],
    });
  });
});

describe('a DTO that declares such a name', () => {
  class LabelDto {
    @IsString() label!: string;
    @IsString() toString!: () => string;
  }

  @Injectable()
  class LabelTools {
    @McpTool({ description: 'Labels' })
    label(@McpArgs() { label }: LabelDto) {
      return label;
    }
  }

  @Module({
    imports: [McpModule.forRoot({ name: 'dto-names', version: '1.0.0', http: false, audit: false })],
    providers: [LabelTools],
  })
  class LabelModule {}

  it('is refused at start-up with the fix, not failed with an internal error and a stack on every call', async () => {
    const moduleRef = await Test.createTestingModule({ imports: [LabelModule] }).compile();
    const app = moduleRef.createNestApplication({ logger: false });
    await expect(app.init()).rejects.toThrow(
      'LabelTools.label: LabelDto declares "toString", named like a member of every object; class-validator cannot ' +
        'validate such a property (it fails on every call)\n' +
        '     fix: rename the property, or describe the arguments with a zod schema or a JSON Schema (`input`), which take any name',
    );
    await app.close();
  });
});
