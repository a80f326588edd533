import { SupportDeskError } from './support-desk.error';

/** The ticket is closed: it cannot be closed again or changed (open a new one instead). */
export class TicketClosedError extends SupportDeskError {
  readonly code = 'TicketClosed';
  readonly details: { ticketId: string };

  constructor(
    readonly ticketId: string,
    action: string,
  ) {
    super(`Ticket ${ticketId} is closed and cannot be ${action}; open a new ticket instead.`);
    this.details = { ticketId };
  }
}
