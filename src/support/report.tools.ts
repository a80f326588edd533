import { Injectable, UseInterceptors } from '@nestjs/common';
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
import { ReportCancelledError, TicketReports } from './ticket-reports';

@Injectable()
@UseInterceptors(CallTimingInterceptor)
@RequireScopes(DeskScopes.reports)
export class ReportTools {
  constructor(private readonly reports: TicketReports) {}

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
    // With a chart of tickets per status, for clients that render MCP Apps views.
    ui: { resource: 'ui://desk/ticket-report' },
  })
  async export(@McpArgs() { status, columns }: ExportReportDto, @McpContext() ctx: McpCallContext) {
    try {
      const report = await this.reports.build({ status, columns }, ctx.signal, (done, total) =>
        ctx.reportProgress(done, total, `${done} of ${total} tickets`),
      );
      return [
        text(`Report of ${report.count} ticket(s)${status ? ` with status ${status}` : ''}: ${report.summary}.`),
        embeddedResource({ uri: `report://tickets/${Date.now()}.csv`, mimeType: 'text/csv', text: report.csv }),
      ];
    } catch (error) {
      if (error instanceof ReportCancelledError) throw new McpToolError(error.message);
      throw error;
    }
  }
}
