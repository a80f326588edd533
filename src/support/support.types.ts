export const CUSTOMER_TIERS = ['standard', 'premium', 'enterprise'] as const;
export type CustomerTier = (typeof CUSTOMER_TIERS)[number];

export const TICKET_STATUSES = ['open', 'pending', 'closed'] as const;
export type TicketStatus = (typeof TICKET_STATUSES)[number];

/** The columns of the ticket report (`export_ticket_report`), in their default order. */
export const REPORT_COLUMNS = ['id', 'customer', 'status', 'priority', 'subject'] as const;
export type ReportColumn = (typeof REPORT_COLUMNS)[number];

export const TICKET_PRIORITIES = ['low', 'normal', 'high', 'urgent'] as const;
export type TicketPriority = (typeof TICKET_PRIORITIES)[number];

export interface Customer {
  id: string;
  name: string;
  email: string;
  company: string;
  tier: CustomerTier;
  createdAt: string;
}

export interface TicketComment {
  author: string;
  body: string;
  at: string;
}

export interface Ticket {
  id: string;
  customerId: string;
  subject: string;
  description: string;
  status: TicketStatus;
  priority: TicketPriority;
  assignee: string | null;
  createdAt: string;
  updatedAt: string;
  resolution: string | null;
  comments: TicketComment[];
}
