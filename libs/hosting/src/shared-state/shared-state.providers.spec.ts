import 'reflect-metadata';
import { sep } from 'node:path';
import { Injectable, Module, type INestApplicationContext } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { CATALOG_TOGGLES, LocalCatalogToggles } from '#libs/catalog';
import { McpArgs, McpTool } from '#libs/core';
import { InMemoryApprovalLedger, MCP_APPROVAL_LEDGER } from '#libs/invocation';
import { DependencyHealth } from '#libs/operations';
import {
  InMemoryAnswerClaims,
  InMemoryTaskStore,
  LocalSessionRelay,
  LocalStreams,
  LocalTaskReplicas,
  MCP_ANSWER_CLAIMS,
  MCP_SESSION_RELAY,
  MCP_SHARED_STREAMS,
  MCP_TASK_REPLICAS,
  MCP_TASK_STORE,
  SessionStore,
} from '#libs/protocol';
import { LocalResourceUpdates, MCP_RESOURCE_UPDATES } from '#libs/resources';
import { InMemoryAuthorizationServerStore, MCP_AUTHORIZATION_SERVER_STORE } from '#libs/authorization-server';
import { InMemoryUserConnectionStore, MCP_USER_CONNECTION_STORE } from '#libs/downstream-identity';
// The package's root entry, as an application imports it.
import { McpInvoker, McpModule, type McpModuleOptions } from '../../../index';

@Injectable()
class Tools {
  @McpTool({ description: 'Echoes', input: { type: 'object', properties: { text: { type: 'string' } } } })
  echo(@McpArgs() args: { text: string }) {
    return args.text;
  }
}

async function host(options: Partial<McpModuleOptions>): Promise<INestApplicationContext> {
  @Module({
    // forRootAsync: every feature is in the module, and so every piece of the shared state.
    imports: [
      McpModule.forRootAsync({
        useFactory: () => ({ name: 'desk', version: '1.0.0', http: false, ...options }),
        health: false,
      }),
    ],
    providers: [Tools],
  })
  class AppModule {}
  return NestFactory.createApplicationContext(AppModule, { logger: false });
}

/** The files of the cluster library this test file's module registry has loaded. */
function clusterFilesLoaded(): string[] {
  return Object.keys(require.cache).filter((file) => file.includes(`${sep}libs${sep}cluster${sep}`));
}

/** The class of each piece of the shared state the host provides. */
function pieces(app: INestApplicationContext): Record<string, string> {
  const tokens = {
    sessions: SessionStore,
    relay: MCP_SESSION_RELAY,
    streams: MCP_SHARED_STREAMS,
    claims: MCP_ANSWER_CLAIMS,
    tasks: MCP_TASK_STORE,
    taskReplicas: MCP_TASK_REPLICAS,
    resourceUpdates: MCP_RESOURCE_UPDATES,
    toggles: CATALOG_TOGGLES,
    approvals: MCP_APPROVAL_LEDGER,
    authorizationServer: MCP_AUTHORIZATION_SERVER_STORE,
    userConnections: MCP_USER_CONNECTION_STORE,
  };
  return Object.fromEntries(
    Object.entries(tokens).map(([name, token]) => [name, (app.get(token) as object).constructor.name]),
  );
}

describe('the shared state', () => {
  // First: nothing of the cluster library is loaded yet in this file.
  it('is in process without the cluster option, and no file of the cluster library is loaded', async () => {
    const app = await host({});
    try {
      expect(await app.get(McpInvoker).callTool('echo', { text: 'hi' })).toMatchObject({
        content: [{ type: 'text', text: 'hi' }],
      });
      expect(pieces(app)).toEqual({
        sessions: SessionStore.name,
        relay: LocalSessionRelay.name,
        streams: LocalStreams.name,
        claims: InMemoryAnswerClaims.name,
        tasks: InMemoryTaskStore.name,
        taskReplicas: LocalTaskReplicas.name,
        resourceUpdates: LocalResourceUpdates.name,
        toggles: LocalCatalogToggles.name,
        approvals: InMemoryApprovalLedger.name,
        authorizationServer: InMemoryAuthorizationServerStore.name,
        userConnections: InMemoryUserConnectionStore.name,
      });
      expect((await app.get(DependencyHealth).check()).map((status) => status.name)).toEqual([]);
      expect(clusterFilesLoaded()).toEqual([]);
    } finally {
      await app.close();
    }
  });

  it("is the cluster's with the option: every piece, and readiness checks the backplane", async () => {
    const { MapBackplane } = jest.requireActual<typeof import('../../../cluster/src/testing/map-backplane')>(
      '../../../cluster/src/testing/map-backplane',
    );
    const app = await host({ cluster: { backplane: new MapBackplane() } });
    try {
      expect(pieces(app)).toEqual({
        sessions: 'ClusterSessionStore',
        relay: 'ClusterSessionRelay',
        streams: 'ClusterStreams',
        claims: 'ClusterAnswerClaims',
        tasks: 'ClusterTaskStore',
        taskReplicas: 'ClusterTaskReplicas',
        resourceUpdates: 'ClusterResourceUpdates',
        toggles: 'ClusterCatalogToggles',
        approvals: 'ClusterApprovalLedger',
        authorizationServer: 'ClusterKeyValueStore',
        userConnections: 'ClusterKeyValueStore',
      });
      expect(await app.get(DependencyHealth).check()).toEqual([{ name: 'cluster', status: 'up', required: true }]);
      // The check of the first test sees the library once it is loaded (it can fail).
      expect(clusterFilesLoaded()).toEqual(
        expect.arrayContaining([
          expect.stringMatching(/cluster-state\.ts$/),
          expect.stringMatching(/mcp-cluster\.ts$/),
        ]),
      );
    } finally {
      await app.close();
    }
  });
});
