/**
 * A rule of the support desk that a request broke (a ticket that does not exist, a closed ticket
 * changed). The stores throw these; each surface says it its own way: the REST API with a status
 * and a body (`DeskErrorsFilter`), the MCP tools with the tool errors they already gave.
 */
export abstract class SupportDeskError extends Error {
  /** A stable name for clients to branch on, e.g. `TicketNotFound`. */
  abstract readonly code: string;
  /** The fields that identify what the rule is about, e.g. `{ ticketId: 'T-2001' }`. */
  abstract readonly details: Record<string, string>;
}
