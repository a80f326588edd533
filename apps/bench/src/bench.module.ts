import { Module } from '@nestjs/common';
import { McpModule } from '#libs/hosting';
import { AddTool } from './add.tool';
import { CatalogFiller } from './catalog-filler';
import { NoopTools } from './noop.tools';

/** The benchmark host: `add` plus 100 other tools, 100 prompts, 100 resources; stateless, every list on one page. */
@Module({
  imports: [McpModule.forRoot({ name: 'nest-mcp-host-bench', version: '1.0.0', mode: 'stateless', pageSize: 200 })],
  providers: [AddTool, NoopTools, CatalogFiller],
})
export class BenchModule {}
