import { Module } from '@nestjs/common';
import { CatalogModule } from '#libs/catalog';
import { InvocationModule } from '#libs/invocation';
import { McpResourceNotifier } from './resource.notifier';
import { ResourceReader } from './resource.reader';

/** Serves resources found by the catalog and their update notifications. */
@Module({
  imports: [CatalogModule, InvocationModule],
  providers: [ResourceReader, McpResourceNotifier],
  exports: [ResourceReader, McpResourceNotifier],
})
export class ResourcesModule {}
