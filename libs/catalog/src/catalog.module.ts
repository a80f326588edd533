import { Module } from '@nestjs/common';
import { DiscoveryModule } from '@nestjs/core';
import { CATALOG_PROVIDERS, LOCAL_CATALOG_TOGGLES } from './catalog.providers';

/** The catalog on its own (without a server), for tests and tools that only read it. */
@Module({
  imports: [DiscoveryModule],
  providers: [...CATALOG_PROVIDERS, LOCAL_CATALOG_TOGGLES],
  exports: [...CATALOG_PROVIDERS, LOCAL_CATALOG_TOGGLES],
})
export class CatalogModule {}
