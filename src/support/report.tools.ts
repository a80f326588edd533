import { setTimeout as delay } from 'node:timers/promises';
import { Inject, Injectable, UseInterceptors } from '@nestjs/common';
import {
  embeddedResource,
  McpArgs,
  McpContext,
  McpTool,
  McpToolError,
  text,
  type McpCallContext,
  RequireScopes,
} from 'nest-mcp-host';
import { CallTimingInterceptor } from './call-timing.interceptor';
import { DeskScopes } from './desk.scopes';
import { ExportReportDto } from './dto/export-report.dto';
import { SUPPORT_OPTIONS, type SupportOptions } from './support.options';
import { REPORT_COLUMNS, type ReportColumn, type Ticket } from './support.types';
import { TicketsStore } from './tickets.store';

const BATCH = 4;

@Injectable()
@UseInterceptors(CallTimingInterceptor)
@RequireScopes(DeskScopes.reports)
export class ReportTools {
  constructor(
    private readonly tickets: TicketsStore,
    @Inject(SUPPORT_OPTIONS) private readonly options: SupportOptions,
  ) {}

  /** Long-running: walks the tickets in batches, reporting progress; stops when cancelled. */
  @McpTool({
    name: 'export_ticket_report',
    title: 'Export a ticket report',
    description:
      'Builds a CSV report of tickets (optionally of one status) with a count per status. ' +
      'Takes a few seconds; reports progress and can be cancelled.',
    annotations: { readOnlyHint: true, openWorldHint: false },
    // Clients that support tasks can start the report and fetch it later.
    task: 'optional',
  })
  async export(@McpArgs() { status, columns }: ExportReportDto, @McpContext() ctx: McpCallContext) {
    const shown: readonly ReportColumn[] = columns ?? REPORT_COLUMNS;
    const selected = (await this.tickets.all()).filter((ticket) => !status || ticket.status === status);
    const rows: string[] = [shown.join(',')];
    for (let done = 0; done < selected.length; done += BATCH) {
      try {
        await delay(this.options.reportStepMs, undefined, { signal: ctx.signal });
      } catch {
        throw new McpToolError(`Report cancelled after ${done} of ${selected.length} tickets.`);
      }
      rows.push(...selected.slice(done, done + BATCH).map((ticket) => toCsvRow(ticket, shown)));
      const processed = Math.min(done + BATCH, selected.length);
      ctx.reportProgress(processed, selected.length, `${processed} of ${selected.length} tickets`);
    }
    return [
      text(`Report of ${selected.length} ticket(s)${status ? ` with status ${status}` : ''}: ${summarise(selected)}.`),
      embeddedResource({ uri: `report://tickets/${Date.now()}.csv`, mimeType: 'text/csv', text: rows.join('\n') }),
    ];
  }
}

function toCsvRow(ticket: Ticket, columns: readonly ReportColumn[]): string {
  const cells: Record<ReportColumn, string> = {
    id: ticket.id,
    customer: ticket.customerId,
    status: ticket.status,
    priority: ticket.priority,
    subject: `"${ticket.subject.replace(/"/g, '""')}"`,
  };
  return columns.map((column) => cells[column]).join(',');
}

function summarise(tickets: readonly Ticket[]): string {
  const counts = new Map<string, number>();
  for (const ticket of tickets) counts.set(ticket.status, (counts.get(ticket.status) ?? 0) + 1);
  return [...counts].map(([key, count]) => `${count} ${key}`).join(', ') || 'none';
}
