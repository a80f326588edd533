import { z } from 'zod';
import { CUSTOMER_TIERS, TICKET_PRIORITIES, TICKET_STATUSES } from './support.types';

/** Output schemas: what get_customer and get_ticket promise to return as structured content. */
export const CustomerOutput = z.object({
  id: z.string(),
  name: z.string(),
  email: z.string(),
  company: z.string(),
  tier: z.enum(CUSTOMER_TIERS),
  createdAt: z.string(),
  openTickets: z.number().int().describe("How many of the customer's tickets are in status open."),
});

export const TicketOutput = z.object({
  id: z.string(),
  customerId: z.string(),
  subject: z.string(),
  description: z.string(),
  status: z.enum(TICKET_STATUSES),
  priority: z.enum(TICKET_PRIORITIES),
  assignee: z.string().nullable().describe('The agent login working the ticket; null while unassigned.'),
  createdAt: z.string(),
  updatedAt: z.string(),
  resolution: z.string().nullable().describe('What fixed it; null until the ticket is closed.'),
  comments: z.array(z.object({ author: z.string(), body: z.string(), at: z.string() })),
});
