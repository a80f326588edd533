import { Module } from '@nestjs/common';
import { McpModule } from '#libs/hosting';
import { AddTool } from './add.tool';
import { NoopTools } from './noop.tools';

/** The benchmark host: `add` plus 100 other tools, stateless, all tools on one list page. */
@Module({
  imports: [McpModule.forRoot({ name: 'nest-mcp-host-bench', version: '1.0.0', mode: 'stateless', pageSize: 200 })],
  providers: [AddTool, NoopTools],
})
export class BenchModule {}
