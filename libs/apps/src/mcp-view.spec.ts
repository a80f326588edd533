import 'reflect-metadata';
import { createHash } from 'node:crypto';
import { Injectable, Module, type INestApplicationContext } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { McpArgs, McpStartupError, McpTool } from '#libs/core';
import { McpInvoker, McpModule } from '#libs/hosting';
import { MCP_APP_MIME_TYPE, MCP_APPS_EXTENSION } from './apps.constants';
import { McpView } from './mcp-view.decorator';

const UI = { extensions: { [MCP_APPS_EXTENSION]: { mimeTypes: [MCP_APP_MIME_TYPE] } } };
const SCRIPT = "document.body.dataset.ready = 'yes';";
const hashOf = (text: string) => `'sha256-${createHash('sha256').update(text).digest('base64')}'`;

@Injectable()
class CardViews {
  @McpView({
    uri: 'ui://test/card',
    name: 'Card',
    scripts: [{ source: SCRIPT }],
    csp: {
      connectDomains: ['https://api.example.com'],
      resourceDomains: [],
      frameDomains: [],
      baseUriDomains: [],
    },
    permissions: ['clipboardWrite'],
    prefersBorder: true,
  })
  card() {
    return '<!doctype html><html><head><title>Card</title></head><body><main></main><script>alert(1)</script></body></html>';
  }
}

@Injectable()
class CardTools {
  @McpTool({ description: 'Shows a card', ui: { resource: 'ui://test/card' } })
  show() {
    return 'a card';
  }

  @McpTool({
    description: 'Only for the card',
    ui: { visibility: ['app'] },
    input: { type: 'object', properties: { id: { type: 'string' } }, required: ['id'] },
  })
  refresh(@McpArgs('id') id: string) {
    return `refreshed ${id}`;
  }
}

async function start(...providers: (new (...args: never[]) => object)[]): Promise<INestApplicationContext> {
  @Module({ imports: [McpModule.forRoot({ name: 'apps', version: '1.0.0', http: false })], providers })
  class AppModule {}
  const app = await NestFactory.createApplicationContext(AppModule, { logger: false, abortOnError: false });
  await app.init();
  return app;
}

describe('MCP Apps in a host', () => {
  let app: INestApplicationContext;
  let invoker: McpInvoker;
  beforeAll(async () => {
    app = await start(CardViews, CardTools);
    invoker = app.get(McpInvoker);
  });
  afterAll(() => app.close());

  it('publishes the tool with its view and visibility as the extension names them', async () => {
    const tools = await invoker.listTools({ clientCapabilities: UI });
    expect(tools.find((tool) => tool.name === 'show')?._meta).toEqual({
      ui: { resourceUri: 'ui://test/card' },
      'ui/resourceUri': 'ui://test/card',
    });
    expect(tools.find((tool) => tool.name === 'refresh')?._meta).toEqual({ ui: { visibility: ['app'] } });
  });

  it('lists and calls an app-only tool for a client that renders views, and for no other', async () => {
    expect((await invoker.listTools({ clientCapabilities: UI })).map((tool) => tool.name)).toEqual(['show', 'refresh']);
    expect((await invoker.callTool('refresh', { id: 'a' }, { clientCapabilities: UI })).content).toEqual([
      { type: 'text', text: 'refreshed a' },
    ]);
    expect((await invoker.listTools()).map((tool) => tool.name)).toEqual(['show']);
    await expect(invoker.callTool('refresh', { id: 'a' })).rejects.toThrow('Unknown tool: refresh');
    // A client that renders other kinds of views only is not one of this host's audience.
    const other = { extensions: { [MCP_APPS_EXTENSION]: { mimeTypes: ['text/html;profile=other'] } } };
    expect((await invoker.listTools({ clientCapabilities: other })).map((tool) => tool.name)).toEqual(['show']);
    // Nor is one that declares the extension without the MIME types it requires.
    for (const settings of [{}, { mimeTypes: 'text/html;profile=mcp-app' }]) {
      const bare = { extensions: { [MCP_APPS_EXTENSION]: settings } };
      expect((await invoker.listTools({ clientCapabilities: bare })).map((tool) => tool.name)).toEqual(['show']);
      await expect(invoker.callTool('refresh', { id: 'a' }, { clientCapabilities: bare })).rejects.toThrow(
        'Unknown tool: refresh',
      );
    }
  });

  it('lists the view with its MIME type and metadata', async () => {
    expect(await invoker.listResources()).toEqual([
      {
        uri: 'ui://test/card',
        name: 'Card',
        mimeType: MCP_APP_MIME_TYPE,
        _meta: {
          ui: {
            csp: {
              connectDomains: ['https://api.example.com'],
              resourceDomains: [],
              frameDomains: [],
              baseUriDomains: [],
            },
            permissions: { clipboardWrite: {} },
            prefersBorder: true,
          },
        },
      },
    ]);
  });

  it('serves the document with a strict policy: the declared script by its hash, the inline one not', async () => {
    const { contents } = await invoker.readResource('ui://test/card');
    expect(contents).toHaveLength(1);
    const [content] = contents as [{ uri: string; mimeType: string; text: string; _meta: unknown }];
    expect(content.uri).toBe('ui://test/card');
    expect(content.mimeType).toBe(MCP_APP_MIME_TYPE);
    expect(content._meta).toEqual({
      ui: {
        csp: {
          connectDomains: ['https://api.example.com'],
          resourceDomains: [],
          frameDomains: [],
          baseUriDomains: [],
        },
        permissions: { clipboardWrite: {} },
        prefersBorder: true,
      },
    });
    const policy = /<head><meta http-equiv="Content-Security-Policy" content="([^"]+)">/.exec(content.text)?.[1];
    expect(policy?.split('; ')).toEqual([
      "default-src 'none'",
      `script-src ${hashOf(SCRIPT)}`,
      "style-src 'unsafe-inline'",
      'img-src data: blob:',
      'font-src data:',
      'media-src data: blob:',
      'connect-src https://api.example.com',
      "frame-src 'none'",
      "base-uri 'none'",
      "form-action 'none'",
      "object-src 'none'",
    ]);
    expect(policy).not.toContain(hashOf('alert(1)'));
    expect(content.text).toContain(`<script type="module">${SCRIPT}</script>\n</body>`);
  });
});

describe('MCP Apps start-up checks', () => {
  it('reports the view problems and the unlinked tool, all of them', async () => {
    @Injectable()
    class BadViews {
      @McpView({
        uri: 'https://not-ui/card',
        name: 'Bad',
        csp: { connectDomains: ['http://api.example.com', 'https://ok.example.com'], scriptDomains: [] } as never,
        permissions: ['usb' as never],
        domain: 'https://x.example.com',
        scripts: [{ file: '/nonexistent/view.js' }, { source: "'</script>'" }, 'inline' as never],
      })
      bad() {
        return '<p>bad</p>';
      }
    }

    @Injectable()
    class Linked {
      @McpTool({ description: 'names a missing view', ui: { resource: 'ui://test/missing' } })
      linked() {
        return 'x';
      }
    }

    const started = start(BadViews, CardViews, Linked);
    await expect(started).rejects.toThrow(McpStartupError);
    const message = await started.then(
      () => 'started',
      (error: Error) => error.message,
    );
    for (const expected of [
      'BadViews.bad: view URI "https://not-ui/card" is not a ui:// URI',
      'csp.connectDomains has "http://api.example.com", which is not an origin',
      'csp.scriptDomains is not a directive of the extension',
      'permission "usb" is not one the extension defines',
      'domain "https://x.example.com" is not a host name',
      'scripts[0]: cannot read /nonexistent/view.js (ENOENT)',
      'scripts[1] contains "</script"',
      'scripts[2] is neither { source } nor { file }',
      `Linked.linked: ui.resource "ui://test/missing" names no view of this host`,
      "fix: declare it with @McpView({ uri: 'ui://test/missing', ... }) on a provider method, or correct the URI (views: https://not-ui/card, ui://test/card)",
    ])
      expect(message).toContain(expected);
    expect(message).not.toContain('https://ok.example.com"');
  });
});

describe('the catalog checks a tool’s ui option', () => {
  it('refuses a ui.resource that is not a ui:// URI and a visibility of neither model nor app', async () => {
    @Injectable()
    class Malformed {
      @McpTool({ description: 'bad ui', ui: { resource: 'http://x', visibility: ['people' as never] } })
      malformed() {
        return 'x';
      }
    }
    const message = await start(Malformed).then(
      () => 'started',
      (error: Error) => error.message,
    );
    expect(message).toContain('Malformed.malformed: ui.resource "http://x" is not a ui:// URI');
    expect(message).toContain(`ui.visibility ["people"] is not a non-empty list of 'model' and 'app'`);
  });
});
