// The cold-start subject of `node test/bench/cold-start.mjs`: a host over stdio with COLD_TOOLS
// tools (default 100), half validated by a class-validator DTO and half by a raw JSON Schema,
// so that start-up does the work a real catalog needs.
import 'reflect-metadata';
import { Injectable, Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { IsInt, IsString, Max, Min } from 'class-validator';
import { McpArgs, McpTool, McpModule, StderrConsoleLogger } from 'nest-mcp-host';

class LookupDto {
  @IsString()
  id!: string;

  @IsInt()
  @Min(1)
  @Max(100)
  limit!: number;
}

const JSON_INPUT = {
  type: 'object',
  properties: { id: { type: 'string' }, limit: { type: 'integer', minimum: 1, maximum: 100 } },
  required: ['id'],
};

@Injectable()
class GeneratedTools {}

const count = Number(process.env.COLD_TOOLS ?? 100);
for (let index = 0; index < count; index++) {
  const prototype = GeneratedTools.prototype;
  const name = `tool_${index}`;
  const dto = index % 2 === 0;
  Object.defineProperty(prototype, name, {
    value: (args: { id: string }) => `tool ${index}: ${args.id}`,
    writable: true,
    configurable: true,
  });
  // What the compiler records for a hand-written `tool_7(@McpArgs() args: LookupDto)`.
  Reflect.defineMetadata('design:paramtypes', [dto ? LookupDto : Object], prototype, name);
  McpArgs()(prototype, name, 0);
  McpTool({ name, description: `Looks up item ${index}`, ...(dto ? {} : { input: JSON_INPUT }) })(
    prototype,
    name,
    Object.getOwnPropertyDescriptor(prototype, name)!,
  );
}

@Module({
  imports: [McpModule.forRoot({ name: 'cold-start', version: '1.0.0', http: false, stdio: true, pageSize: 2_000 })],
  providers: [GeneratedTools],
})
class ColdStartModule {}

async function bootstrap(): Promise<void> {
  const app = await NestFactory.createApplicationContext(ColdStartModule, {
    logger: new StderrConsoleLogger({ logLevels: ['error', 'warn'] }),
  });
  process.stdin.once('end', () => void app.close());
}
void bootstrap();
