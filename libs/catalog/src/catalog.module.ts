import { Module } from '@nestjs/common';
import { DiscoveryModule } from '@nestjs/core';
import { CATALOG_PROVIDERS } from './catalog.providers';

/** The catalog on its own (without a server), for tests and tools that only read it. */
@Module({
  imports: [DiscoveryModule],
  providers: CATALOG_PROVIDERS,
  exports: CATALOG_PROVIDERS,
})
export class CatalogModule {}
