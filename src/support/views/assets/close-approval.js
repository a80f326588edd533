// What a person approves when close_ticket asks: the ticket as it is now (read with get_ticket
// through the host) and the resolution the customer will read; then what the call did.
const { App } = globalThis.ExtApps;
const approval = document.getElementById('approval');

const element = (tag, attributes = {}, ...children) => {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) node.setAttribute(name, value);
  node.append(...children);
  return node;
};

const app = new App({ name: 'desk-close-approval', version: '1.0.0' });
app.ontoolinput = async ({ arguments: args }) => {
  const { ticketId, resolution } = args ?? {};
  approval.replaceChildren(
    element(
      'div',
      { class: 'approve', id: 'request' },
      element('h1', {}, `Close ticket ${ticketId}?`),
      element('p', {}, 'The customer will read this resolution:'),
      element('blockquote', { id: 'resolution' }, resolution ?? ''),
      element('p', { class: 'muted', id: 'decision' }, 'Waiting for your approval…'),
    ),
    element('section', { id: 'ticket' }, element('p', { class: 'muted' }, 'Loading the ticket…')),
  );
  approval.dataset.state = 'asking';
  const current = await app.callServerTool({ name: 'get_ticket', arguments: { ticketId } });
  const ticket = current.structuredContent;
  document
    .getElementById('ticket')
    .replaceChildren(
      ticket
        ? element(
            'dl',
            {},
            element('dt', {}, 'Subject'),
            element('dd', { id: 'subject' }, ticket.subject),
            element('dt', {}, 'Status now'),
            element(
              'dd',
              {},
              element('span', { class: 'badge', 'data-status': ticket.status, id: 'status-now' }, ticket.status),
            ),
            element('dt', {}, 'Customer'),
            element('dd', {}, ticket.customerId),
            element('dt', {}, 'Comments'),
            element('dd', {}, String(ticket.comments.length)),
          )
        : element('p', { class: 'error' }, current.content?.[0]?.text ?? 'No ticket'),
    );
};
app.ontoolresult = (result) => {
  const decision = document.getElementById('decision');
  const box = document.getElementById('request');
  if (result.isError) {
    decision.textContent = result.content?.[0]?.text ?? 'Not closed';
    decision.className = 'error';
    approval.dataset.state = 'refused';
    return;
  }
  const closed = result.structuredContent ?? {};
  decision.textContent = closed.alreadyClosed
    ? 'It was closed already: nothing changed.'
    : `Closed: ${closed.id} is now ${closed.status}.`;
  decision.className = '';
  box?.classList.add('done');
  approval.dataset.state = 'closed';
};
await app.connect();
