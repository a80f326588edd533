// The ticket card: the ticket get_ticket returned, and its customer, fetched through the host with
// the app-only tool ticket_customer (a call of the view, recorded as such).
const { App } = globalThis.ExtApps;
const card = document.getElementById('card');

const element = (tag, attributes = {}, ...children) => {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) node.setAttribute(name, value);
  node.append(...children);
  return node;
};

function showTicket(ticket) {
  card.replaceChildren(
    element('h1', {}, `${ticket.id} · ${ticket.subject}`),
    element(
      'p',
      {},
      element('span', { class: 'badge', 'data-status': ticket.status, id: 'status' }, ticket.status),
      ' ',
      element('span', { class: 'badge', 'data-priority': ticket.priority }, ticket.priority),
      ' ',
      element('span', { class: 'muted' }, ticket.assignee ? `assigned to ${ticket.assignee}` : 'unassigned'),
    ),
    element('p', { id: 'description' }, ticket.description),
    element('section', { id: 'customer' }, element('p', { class: 'muted' }, 'Loading the customer…')),
    element(
      'section',
      {},
      element('strong', {}, `Comments (${ticket.comments.length})`),
      element(
        'ul',
        { class: 'comments' },
        ...ticket.comments.map((comment) =>
          element('li', {}, element('strong', {}, comment.author), ': ', comment.body),
        ),
      ),
      ticket.resolution ? element('p', {}, element('strong', {}, 'Resolution: '), ticket.resolution) : '',
    ),
  );
  card.dataset.state = 'ticket';
}

function showCustomer(result) {
  const section = document.getElementById('customer');
  if (result.isError) {
    section.replaceChildren(element('p', { class: 'error' }, result.content?.[0]?.text ?? 'No customer'));
    return;
  }
  const { customer, openTickets } = result.structuredContent;
  section.replaceChildren(
    element(
      'dl',
      {},
      element('dt', {}, 'Customer'),
      element('dd', { id: 'customer-name' }, `${customer.name} (${customer.company})`),
      element('dt', {}, 'Tier'),
      element('dd', {}, customer.tier),
      element('dt', {}, 'Open tickets'),
      element('dd', { id: 'open-tickets' }, String(openTickets)),
    ),
  );
  card.dataset.state = 'ready';
}

const app = new App({ name: 'desk-ticket-card', version: '1.0.0' });
app.ontoolresult = async (result) => {
  if (result.isError || !result.structuredContent) {
    card.replaceChildren(element('p', { class: 'error' }, result.content?.[0]?.text ?? 'No ticket'));
    card.dataset.state = 'error';
    return;
  }
  const ticket = result.structuredContent;
  showTicket(ticket);
  try {
    showCustomer(await app.callServerTool({ name: 'ticket_customer', arguments: { ticketId: ticket.id } }));
  } catch (error) {
    showCustomer({ isError: true, content: [{ type: 'text', text: String(error.message ?? error) }] });
  }
};
await app.connect();
