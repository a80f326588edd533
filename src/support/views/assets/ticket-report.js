// The ticket report: the summary export_ticket_report returned, and a chart of tickets per status
// and priority drawn from the app-only tool ticket_status_counts.
const { App } = globalThis.ExtApps;
const report = document.getElementById('report');
const SVG = 'http://www.w3.org/2000/svg';
const COLOURS = { open: '#2f6fdf', pending: '#b7791f', closed: '#1f8a4c' };

const element = (tag, attributes = {}, ...children) => {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) node.setAttribute(name, value);
  node.append(...children);
  return node;
};
const svg = (tag, attributes = {}, ...children) => {
  const node = document.createElementNS(SVG, tag);
  for (const [name, value] of Object.entries(attributes)) node.setAttribute(name, String(value));
  node.append(...children);
  return node;
};

/** A bar per status, stacked by priority shade; counts written at the bar's end. */
function chart(counts) {
  const rows = Object.entries(counts.byStatus);
  const max = Math.max(1, ...rows.map(([, count]) => count));
  const width = 420;
  const bar = 26;
  const height = rows.length * (bar + 12) + 8;
  return svg(
    'svg',
    { id: 'chart', width, height, viewBox: `0 0 ${width} ${height}`, role: 'img', 'aria-label': 'Tickets per status' },
    ...rows.flatMap(([status, count], index) => {
      const y = 4 + index * (bar + 12);
      const length = Math.round(((width - 150) * count) / max);
      return [
        svg('text', { x: 0, y: y + bar * 0.7, 'font-size': 13 }, status),
        svg('rect', {
          x: 80,
          y,
          width: Math.max(length, 2),
          height: bar,
          rx: 4,
          fill: COLOURS[status] ?? '#667',
          'data-status': status,
          'data-count': count,
        }),
        svg('text', { x: 86 + length, y: y + bar * 0.7, 'font-size': 13, 'font-weight': 600 }, String(count)),
      ];
    }),
  );
}

function showCounts(result) {
  const section = element('section', { id: 'counts' });
  if (result.isError) {
    section.append(element('p', { class: 'error', id: 'counts-error' }, result.content?.[0]?.text ?? 'No counts'));
    report.append(section);
    report.dataset.state = 'refused';
    return;
  }
  const counts = result.structuredContent;
  section.append(
    element('strong', {}, 'Tickets per status'),
    chart(counts),
    element(
      'p',
      { class: 'muted' },
      'By priority: ',
      Object.entries(counts.byPriority)
        .map(([priority, count]) => `${count} ${priority}`)
        .join(', '),
    ),
  );
  report.append(section);
  report.dataset.state = 'ready';
}

const app = new App({ name: 'desk-ticket-report', version: '1.0.0' });
let status;
app.ontoolinput = ({ arguments: args }) => {
  status = args?.status;
};
app.ontoolresult = async (result) => {
  const summary = result.content?.find((block) => block.type === 'text')?.text ?? '';
  report.replaceChildren(element('h1', {}, 'Ticket report'), element('p', { id: 'summary' }, summary));
  report.dataset.state = 'summary';
  try {
    showCounts(await app.callServerTool({ name: 'ticket_status_counts', arguments: status ? { status } : {} }));
  } catch (error) {
    showCounts({ isError: true, content: [{ type: 'text', text: String(error.message ?? error) }] });
  }
};
await app.connect();
