import {
  ResourceUpdatedNotificationSchema,
  ToolListChangedNotificationSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { McpCatalog, McpResourceNotifier } from 'nest-mcp-host';
import { connectSdkV1, connectSdkV2, MODERN } from './support/era-clients';
import { startDeskHost, type DeskHost } from './support/desk-host';
import { waitFor } from './support/wait-for';

const SUBSCRIPTION_ID = 'io.modelcontextprotocol/subscriptionId';
const ARTICLE = 'kb://articles/vat-rates';
const OTHER_ARTICLE = 'kb://articles/refunds';

/**
 * Change notifications in each era, from one host: the desk's knowledge base changes (the
 * resource notifier) and its tool list changes (the run-time catalog). A 2025-11-25 client
 * subscribes to a resource and hears both on its session's GET stream; a 2026-07-28 client opens
 * `subscriptions/listen` with the notifications it wants and hears exactly those on that stream.
 */
describe('change notifications in each era (one host, MCP_MODE=stateful)', () => {
  let host: DeskHost;
  let catalog: McpCatalog;
  let notifier: McpResourceNotifier;
  beforeAll(async () => {
    host = await startDeskHost();
    catalog = host.app.get(McpCatalog);
    notifier = host.app.get(McpResourceNotifier);
  });
  afterAll(() => host.close());

  /** Changes the article the client listens to, another one, and the tool list (undone by `restore`). */
  async function changeTheDesk(heard: string[]): Promise<void> {
    notifier.resourceUpdated(OTHER_ARTICLE);
    notifier.resourceUpdated(ARTICLE);
    await waitFor(() => heard.includes(ARTICLE));
    catalog.disable('tool', 'export_ticket_report');
    await waitFor(() => heard.includes('tools'));
  }
  const restore = () => catalog.enable('tool', 'export_ticket_report');

  it('SDK v1 Client (2025-11-25): resources/subscribe, then both changes on the session stream', async () => {
    const { client } = await connectSdkV1(host.url, 'notified-2025');
    const heard: string[] = [];
    client.setNotificationHandler(ToolListChangedNotificationSchema, () => void heard.push('tools'));
    client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => void heard.push(n.params.uri));
    try {
      await client.subscribeResource({ uri: ARTICLE });
      await new Promise((resolve) => setTimeout(resolve, 200)); // the client opens its GET stream in the background
      await changeTheDesk(heard);
      expect(heard).toEqual([ARTICLE, 'tools']);
    } finally {
      await client.close();
      restore();
    }
  });

  describe.each([
    ['versionNegotiation auto', 'auto' as const],
    [`pinned to ${MODERN}`, { pin: MODERN }],
  ])('SDK v2 Client, %s', (_title, mode) => {
    it('subscriptions/listen: acknowledged first, then only the changes asked for, each naming the subscription', async () => {
      const { client, tap } = await connectSdkV2(host.url, 'listener-2026', mode);
      const heard: string[] = [];
      client.setNotificationHandler('notifications/tools/list_changed', () => void heard.push('tools'));
      client.setNotificationHandler('notifications/resources/updated', (n) => void heard.push(n.params.uri));
      try {
        expect(client.getNegotiatedProtocolVersion()).toBe(MODERN);
        const filter = { toolsListChanged: true, resourceSubscriptions: [ARTICLE] };
        const subscription = await client.listen(filter);
        expect(subscription.honoredFilter).toEqual(filter);
        await changeTheDesk(heard);
        expect(heard).toEqual([ARTICLE, 'tools']);

        const [listen] = tap.requests('subscriptions/listen');
        expect(listen.httpMethod).toBe('POST');
        // The tap reads its copy of the stream a moment after the client: wait for it (the check below says what came).
        await waitFor(() => listen.received.length >= 3).catch(() => undefined);
        expect(listen.received.map((message) => message.method)).toEqual([
          'notifications/subscriptions/acknowledged',
          'notifications/resources/updated',
          'notifications/tools/list_changed',
        ]);
        for (const message of listen.received)
          expect(message.params?._meta).toMatchObject({ [SUBSCRIPTION_ID]: listen.sent!.id });
        // Nothing arrives anywhere but on the listen stream (there is no GET stream in this revision).
        expect(tap.exchanges.filter((exchange) => exchange.httpMethod !== 'POST')).toEqual([]);

        await subscription.close();
        expect(await subscription.closed).toBe('local');
      } finally {
        await client.close();
        restore();
      }
    });
  });
});
