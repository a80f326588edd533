import { SupportDeskError } from './support-desk.error';

/** No ticket has this id (never created, or deleted). */
export class TicketNotFoundError extends SupportDeskError {
  readonly code = 'TicketNotFound';
  readonly details: { ticketId: string };

  constructor(readonly ticketId: string) {
    super(`No ticket ${ticketId}.`);
    this.details = { ticketId };
  }
}
