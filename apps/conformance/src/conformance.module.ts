import { Module } from '@nestjs/common';
import { McpModule } from 'nest-mcp-host';
import { BehaviourFixtures } from './behaviour.fixtures';
import { ContentFixtures } from './content.fixtures';
import { ClientRequestFixtures } from './client-request.fixtures';
import { FixtureLogInterceptor } from './fixture-log';
import { HeaderFixtures } from './header.fixtures';
import { InputRequiredFixtures } from './input-required.fixtures';
import { PromptFixtures } from './prompt.fixtures';
import { ResourceFixtures } from './resource.fixtures';
import { StatelessFixtures } from './stateless.fixtures';
import { TaskFixtures } from './task.fixtures';

/**
 * The official conformance suite's fixtures, built on the public API only. `ContentFixtures` comes
 * first: some 2026-07-28 scenarios use the first listed tool (`test_simple_text`).
 */
@Module({
  imports: [McpModule.forRoot({ name: 'nest-mcp-host-conformance', version: '1.0.0', pageSize: 1000 })],
  providers: [
    FixtureLogInterceptor,
    ContentFixtures,
    BehaviourFixtures,
    PromptFixtures,
    ResourceFixtures,
    ClientRequestFixtures,
    StatelessFixtures,
    InputRequiredFixtures,
    TaskFixtures,
    HeaderFixtures,
  ],
})
export class ConformanceModule {}
