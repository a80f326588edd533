import { Get, Query, Req } from '@nestjs/common';
import { ApiOkResponse, ApiOperation } from '@nestjs/swagger';
import { RequireScopes } from 'nest-mcp-host';
import { DeskScopes } from '../desk.scopes';
import { TicketReports } from '../ticket-reports';
import { DeskApiController } from './desk-api.decorator';
import { ReportQuery } from './dto/report.query';
import { TicketReportResponse } from './responses/ticket-report.response';

/** The request as either platform passes it: Express's is Node's own, Fastify's holds it as `raw`. */
type PlatformRequest = { raw?: NodeJS.EventEmitter & { complete?: boolean } } & NodeJS.EventEmitter;

/** Reports over REST: the same report as `export_ticket_report`, stopped when the client goes away. */
@DeskApiController('reports')
@RequireScopes(DeskScopes.reports)
export class ReportsController {
  constructor(private readonly reports: TicketReports) {}

  @Get('tickets')
  @ApiOperation({
    operationId: 'exportTicketReport',
    summary: 'Export a ticket report',
    description:
      'Builds a CSV report of tickets (optionally of one status) with a count per status. Takes a few seconds; ' +
      'stops when the request is abandoned.',
  })
  @ApiOkResponse({ type: TicketReportResponse })
  async tickets(@Query() query: ReportQuery, @Req() request: PlatformRequest): Promise<TicketReportResponse> {
    return this.reports.build(query, abandonment(request.raw ?? request));
  }
}

/** Aborts when the client closes the connection before the answer (a cancelled bridged call does too). */
function abandonment(request: NodeJS.EventEmitter): AbortSignal {
  const controller = new AbortController();
  request.once('aborted', () => controller.abort(new Error('the request was abandoned')));
  request.once('close', () => {
    if ((request as { aborted?: boolean }).aborted) controller.abort(new Error('the request was abandoned'));
  });
  return controller.signal;
}
