import { Module, type DynamicModule } from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import { CallTimingInterceptor } from './call-timing.interceptor';
import { CustomerTools } from './customer.tools';
import { deskStoreProviders } from './desk-stores.providers';
import { KnowledgeBaseResources } from './knowledge-base.resources';
import { KnowledgeBaseStore } from './knowledge-base.store';
import { ReadOnlyModeGuard } from './read-only-mode.guard';
import { ReportTools } from './report.tools';
import { TicketReports } from './ticket-reports';
import { CustomersController } from './rest/customers.controller';
import { ReportsController } from './rest/reports.controller';
import { TicketsController } from './rest/tickets.controller';
import { SUPPORT_OPTIONS, type SupportOptions } from './support.options';
import { TicketTools } from './ticket.tools';
import { TicketChanges, TicketResources } from './ticket.resources';
import { TriagePrompt } from './triage.prompt';
import { DeskViews } from './views/desk.views';
import { ViewTools } from './views/view.tools';

/**
 * The support desk back-end (customers and tickets in memory, or in PostgreSQL with `databaseUrl`),
 * the MCP tools, prompt and resources over it, and its REST API (`/api`).
 */
@Module({})
export class SupportModule {
  static register(options: SupportOptions): DynamicModule {
    return {
      module: SupportModule,
      controllers: [TicketsController, CustomersController, ReportsController],
      providers: [
        { provide: SUPPORT_OPTIONS, useValue: options },
        { provide: APP_GUARD, useClass: ReadOnlyModeGuard },
        ...deskStoreProviders(options.databaseUrl),
        CallTimingInterceptor,
        CustomerTools,
        TicketTools,
        TicketResources,
        TicketChanges,
        TicketReports,
        ReportTools,
        KnowledgeBaseStore,
        KnowledgeBaseResources,
        TriagePrompt,
        DeskViews,
        ViewTools,
      ],
    };
  }
}
