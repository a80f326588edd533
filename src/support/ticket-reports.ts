import { setTimeout as delay } from 'node:timers/promises';
import { Inject, Injectable } from '@nestjs/common';
import { SUPPORT_OPTIONS, type SupportOptions } from './support.options';
import { REPORT_COLUMNS, type ReportColumn, type Ticket, type TicketStatus } from './support.types';
import { TicketsStore } from './tickets.store';

/** Tickets reported per step: each step takes `reportStepMs` (a stand-in for real work). */
const BATCH = 4;

/** A report of tickets, as the tool and the REST route both give it. */
export interface TicketReport {
  count: number;
  /** Tickets per status, e.g. `12 open, 4 pending, 4 closed`. */
  summary: string;
  csv: string;
}

/** Thrown when a report is stopped before its end (the call or the request was cancelled). */
export class ReportCancelledError extends Error {}

/**
 * Builds the CSV report of tickets that `export_ticket_report` and `GET /api/reports/tickets`
 * serve: batch by batch, reporting progress, and stopping when `signal` aborts.
 */
@Injectable()
export class TicketReports {
  constructor(
    private readonly tickets: TicketsStore,
    @Inject(SUPPORT_OPTIONS) private readonly options: SupportOptions,
  ) {}

  /** @throws ReportCancelledError naming how far it got, when `signal` aborts */
  async build(
    { status, columns }: { status?: TicketStatus; columns?: readonly ReportColumn[] },
    signal: AbortSignal,
    onProgress: (done: number, total: number) => void = () => undefined,
  ): Promise<TicketReport> {
    const shown = columns ?? REPORT_COLUMNS;
    const selected = (await this.tickets.all()).filter((ticket) => !status || ticket.status === status);
    const rows: string[] = [shown.join(',')];
    for (let done = 0; done < selected.length; done += BATCH) {
      try {
        await delay(this.options.reportStepMs, undefined, { signal });
      } catch {
        throw new ReportCancelledError(`Report cancelled after ${done} of ${selected.length} tickets.`);
      }
      rows.push(...selected.slice(done, done + BATCH).map((ticket) => toCsvRow(ticket, shown)));
      onProgress(Math.min(done + BATCH, selected.length), selected.length);
    }
    return { count: selected.length, summary: summarise(selected), csv: rows.join('\n') };
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
