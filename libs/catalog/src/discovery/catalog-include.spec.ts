import { Injectable, Module } from '@nestjs/common';
import { DiscoveryModule } from '@nestjs/core';
import { Test } from '@nestjs/testing';
import { McpPrompt, McpResource, McpStartupError, McpTool } from '#libs/core';
import { CATALOG_PROVIDERS, LOCAL_CATALOG_TOGGLES } from '../catalog.providers';
import { MCP_CATALOG_OPTIONS, resolveCatalogOptions, type CatalogOptions } from './catalog.options';
import { PromptRegistry } from '../prompts/prompt.registry';
import { ResourceRegistry } from '../resources/resource.registry';
import { ToolRegistry } from '../tools/tool.registry';

@Injectable()
class SupportTools {
  @McpTool({ description: 'Opens a ticket' })
  open_ticket() {}

  @McpPrompt({ description: 'Summarises a ticket' })
  summarise() {
    return 'summary';
  }
}

@Injectable()
class BillingTools {
  @McpTool({ description: 'Sends an invoice' })
  send_invoice() {}

  @McpResource({ uri: 'billing://plans', name: 'plans', description: 'Price plans' })
  plans() {
    return 'plans';
  }
}

@Injectable()
class LedgerTools {
  @McpTool({ description: 'Reads the ledger' })
  read_ledger() {}
}

/** Imported by BillingModule: its tools are not served by an endpoint that includes BillingModule only. */
@Module({ providers: [LedgerTools] })
class LedgerModule {}

@Module({ providers: [SupportTools] })
class SupportModule {}

@Module({ imports: [LedgerModule], providers: [BillingTools] })
class BillingModule {}

@Module({})
class UnusedModule {}

/** The catalog of an application with two feature modules, scanning what `options` selects. */
async function catalogOf(options?: CatalogOptions) {
  const moduleRef = await Test.createTestingModule({
    imports: [DiscoveryModule, SupportModule, BillingModule, UnusedModule],
    providers: [
      ...CATALOG_PROVIDERS,
      LOCAL_CATALOG_TOGGLES,
      ...(options ? [{ provide: MCP_CATALOG_OPTIONS, useValue: options }] : []),
    ],
  }).compile();
  await moduleRef.init();
  return {
    tools: moduleRef
      .get(ToolRegistry)
      .all()
      .map((tool) => tool.name)
      .sort(),
    prompts: moduleRef
      .get(PromptRegistry)
      .all()
      .map((prompt) => prompt.name),
    resources: moduleRef
      .get(ResourceRegistry)
      .resources.all()
      .map((resource) => resource.uri),
  };
}

describe('CatalogExplorer include filter', () => {
  it('scans every module without include', async () => {
    expect(await catalogOf()).toEqual({
      tools: ['open_ticket', 'read_ledger', 'send_invoice'],
      prompts: ['summarise'],
      resources: ['billing://plans'],
    });
    expect(await catalogOf({ include: undefined })).toEqual(await catalogOf());
  });

  it('scans only the providers declared in the included modules, not in the modules they import', async () => {
    expect(await catalogOf({ include: [SupportModule] })).toEqual({
      tools: ['open_ticket'],
      prompts: ['summarise'],
      resources: [],
    });
    expect(await catalogOf({ include: [BillingModule] })).toEqual({
      tools: ['send_invoice'],
      prompts: [],
      resources: ['billing://plans'],
    });
    expect(await catalogOf({ include: [BillingModule, LedgerModule] })).toEqual({
      tools: ['read_ledger', 'send_invoice'],
      prompts: [],
      resources: ['billing://plans'],
    });
  });

  it('serves nothing with an empty include (entries may still be added at run time)', async () => {
    expect(await catalogOf({ include: [] })).toEqual({ tools: [], prompts: [], resources: [] });
  });

  it('refuses to start when an included module is not part of the application, saying how to fix it', async () => {
    @Module({})
    class ForgottenModule {}
    const error = await catalogOf({ include: [SupportModule, ForgottenModule] }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(McpStartupError);
    expect((error as McpStartupError).diagnostics).toEqual([
      {
        where: 'McpModule option "include"',
        problem: 'ForgottenModule is not a module of this application, so it has no tools to serve',
        fix: "import ForgottenModule in the application (e.g. in AppModule's imports), or remove it from include",
      },
    ]);
  });
});

describe('resolveCatalogOptions', () => {
  const problems = (include: unknown) => {
    const found: string[] = [];
    const options = resolveCatalogOptions({ include }, (option, problem) => found.push(`${option}: ${problem}`));
    return { options, found };
  };

  it('keeps a list of module classes and leaves it out when absent', () => {
    expect(problems(undefined)).toEqual({ options: { include: undefined }, found: [] });
    expect(problems([SupportModule])).toEqual({ options: { include: [SupportModule] }, found: [] });
  });

  it('reports anything but an array of classes', () => {
    expect(problems(SupportModule).found).toEqual(['include: must be an array of module classes']);
    expect(problems(['SupportModule']).found).toEqual(['include: must be an array of module classes']);
  });
});
