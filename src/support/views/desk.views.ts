import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Injectable, type OnModuleInit } from '@nestjs/common';
import { McpView } from 'nest-mcp-host';
import { extAppsRuntime } from './ext-apps-runtime';

const ASSETS = join(__dirname, 'assets');
/** Every view runs the official `App` of ext-apps first, then its own script. */
const scriptsOf = (view: string) => [{ source: extAppsRuntime }, { file: join(ASSETS, `${view}.js`) }];

/**
 * The desk's MCP Apps views, one per tool that has one: clients that render views (Claude,
 * ChatGPT, VS Code, Cursor) show them beside the tool's result; the others get the result's text.
 * Each page is a template of assets/ with the desk's stylesheet put in, read once at start-up; the
 * data comes from the tool's result and from the tools the view calls through the client.
 */
@Injectable()
export class DeskViews implements OnModuleInit {
  private readonly pages = new Map<string, string>();

  onModuleInit(): void {
    const style = readFileSync(join(ASSETS, 'desk-view.css'), 'utf8');
    for (const view of ['ticket-card', 'ticket-report', 'close-approval']) {
      const html = readFileSync(join(ASSETS, `${view}.html`), 'utf8');
      this.pages.set(view, html.replace('/* desk-view.css */', style));
    }
  }

  @McpView({
    uri: 'ui://desk/ticket-card',
    name: 'ticket-card',
    title: 'Ticket card',
    description: 'A ticket with its status, comments and customer (the view of get_ticket).',
    scripts: scriptsOf('ticket-card'),
    prefersBorder: true,
  })
  ticketCard(): string {
    return this.pages.get('ticket-card')!;
  }

  @McpView({
    uri: 'ui://desk/ticket-report',
    name: 'ticket-report',
    title: 'Ticket report',
    description: 'The report of export_ticket_report with a chart of tickets per status.',
    scripts: scriptsOf('ticket-report'),
    prefersBorder: true,
  })
  ticketReport(): string {
    return this.pages.get('ticket-report')!;
  }

  @McpView({
    uri: 'ui://desk/close-approval',
    name: 'close-approval',
    title: 'Close a ticket',
    description: 'What a person approves when close_ticket asks: the ticket now and the resolution.',
    scripts: scriptsOf('close-approval'),
    prefersBorder: true,
  })
  closeApproval(): string {
    return this.pages.get('close-approval')!;
  }
}
