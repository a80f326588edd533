import type { Customer, Ticket, TicketPriority, TicketStatus } from './support.types';

/** Demo data for the embedded in-memory stores. */
export const SEED_CUSTOMERS: readonly Customer[] = [
  {
    id: 'C-1001',
    name: 'Alice Martin',
    email: 'alice.martin@northwind.example',
    company: 'Northwind Traders',
    tier: 'enterprise',
    createdAt: '2024-02-12T09:30:00Z',
  },
  {
    id: 'C-1002',
    name: 'Bruno Costa',
    email: 'bruno@contoso.example',
    company: 'Contoso Ltd',
    tier: 'premium',
    createdAt: '2024-05-03T14:10:00Z',
  },
  {
    id: 'C-1003',
    name: 'Chen Wei',
    email: 'chen.wei@fabrikam.example',
    company: 'Fabrikam Inc',
    tier: 'standard',
    createdAt: '2024-07-21T08:00:00Z',
  },
  {
    id: 'C-1004',
    name: 'Dana Novak',
    email: 'dana.novak@tailspin.example',
    company: 'Tailspin Toys',
    tier: 'premium',
    createdAt: '2024-09-09T16:45:00Z',
  },
  {
    id: 'C-1005',
    name: 'Emeka Obi',
    email: 'emeka@wingtip.example',
    company: 'Wingtip Toys',
    tier: 'standard',
    createdAt: '2025-01-15T11:20:00Z',
  },
  {
    id: 'C-1006',
    name: 'Fatima Zahra',
    email: 'fatima.zahra@adatum.example',
    company: 'Adatum Corp',
    tier: 'enterprise',
    createdAt: '2025-03-02T10:05:00Z',
  },
  {
    id: 'C-1007',
    name: 'Gustav Larsen',
    email: 'gustav@litware.example',
    company: 'Litware',
    tier: 'standard',
    createdAt: '2025-06-30T13:40:00Z',
  },
  {
    id: 'C-1008',
    name: 'Hana Sato',
    email: 'hana.sato@proseware.example',
    company: 'Proseware',
    tier: 'premium',
    createdAt: '2025-08-18T07:55:00Z',
  },
];

const SUBJECTS: ReadonlyArray<[string, string]> = [
  ['Cannot log in after password reset', 'The reset link works but the new password is rejected at login.'],
  ['Invoice shows wrong VAT rate', 'The October invoice applies 19 % VAT instead of 7 % for books.'],
  ['Export to CSV times out', 'Exporting more than 10k orders ends with a gateway timeout.'],
  ['Request for SSO setup', 'We would like to enable SAML single sign-on for our team.'],
  ['Webhook deliveries delayed', 'Order webhooks arrive 20–30 minutes late since Monday.'],
  ['API rate limit too low', 'Our nightly sync hits 429 responses after 5 minutes.'],
  ['Duplicate charge on card', 'The customer was charged twice for subscription renewal.'],
  ['Mobile app crashes on start', 'Version 4.2 crashes on Android 14 devices right after launch.'],
  ['Add user seats', 'Please add 15 seats to our plan, effective this month.'],
  // The customer's own address (governance redacts it for callers not cleared for personal data).
  ['Data retention question', 'How long do you keep deleted records in backups? Reply to {email}.'],
];
const STATUSES: readonly TicketStatus[] = ['open', 'pending', 'open', 'closed', 'open'];
const PRIORITIES: readonly TicketPriority[] = ['normal', 'high', 'low', 'urgent', 'normal', 'high'];
const AGENTS = ['maria.lopez', 'tom.becker', null, 'sara.kim'];

/** Twenty tickets spread over the customers, with comments on some. */
export const SEED_TICKETS: readonly Ticket[] = Array.from({ length: 20 }, (_, i) => {
  const [subject, description] = SUBJECTS[i % SUBJECTS.length];
  const customer = SEED_CUSTOMERS[i % SEED_CUSTOMERS.length];
  const status = STATUSES[i % STATUSES.length];
  const created = new Date(Date.UTC(2026, 9, 1 + i, 9, 15)).toISOString();
  return {
    id: `T-${2001 + i}`,
    customerId: customer.id,
    subject,
    description: description.replace('{email}', customer.email),
    status,
    priority: PRIORITIES[i % PRIORITIES.length],
    assignee: AGENTS[i % AGENTS.length],
    createdAt: created,
    updatedAt: created,
    resolution: status === 'closed' ? 'Resolved by configuration change.' : null,
    comments: i % 3 === 0 ? [{ author: 'maria.lopez', body: 'Reproduced; investigating.', at: created }] : [],
  };
});
