/*
 * The admin dashboard's script, served as `<admin path>/app.js` (the page's CSP allows scripts
 * from 'self' only, so nothing runs inline). Plain ES2020 for the browser, no build step: it
 * reads the admin API every few seconds and renders it with DOM nodes and `textContent` only
 * (never as markup), so tool names, arguments or errors cannot inject any. Everything lives in
 * one function scope: the page gets no globals. Its settings come from the page's <html>
 * attributes (data-base, data-refresh-ms). Checked by admin-page.spec.ts (it parses, uses no
 * markup sinks, looks up only elements admin.html has).
 */
'use strict';
(function () {
  var root = document.documentElement;
  var BASE = root.getAttribute('data-base') || '/admin';
  var REFRESH_MS = Number(root.getAttribute('data-refresh-ms')) || 5000;
  var KEY_STORAGE = 'mcp-admin-key';
  var CATALOG_EVERY = 6;
  var OUTCOMES = [
    'ok',
    'tool_error',
    'error',
    'unauthenticated',
    'denied',
    'throttled',
    'invalid',
    'limited',
    'not_found',
    'cancelled',
    'timeout',
    'unavailable',
  ];
  var refreshes = 0;
  var busy = false;
  var blocked = false;
  var catalogJson = null;
  var rotation = null; // the last key rotation made from this page
  var noGrants = false; // this host has no authorization server: asked once, not on every refresh
  var auditFilter = { principal: '', target: '', outcome: '', limit: '50' };

  function $(id) {
    return document.getElementById(id);
  }

  /** An element with attributes and children; strings become text nodes (never markup). */
  function h(tag, attrs, children) {
    var node = document.createElement(tag);
    if (attrs) {
      Object.keys(attrs).forEach(function (name) {
        var value = attrs[name];
        if (value === null || value === undefined || value === false) return;
        if (name === 'className') node.className = value;
        else node.setAttribute(name, String(value));
      });
    }
    (children || []).forEach(function (child) {
      if (child === null || child === undefined) return;
      node.appendChild(typeof child === 'object' ? child : document.createTextNode(String(child)));
    });
    return node;
  }
  function td(value, attrs) {
    return h('td', attrs, [value]);
  }
  function num(value, col, extra) {
    return h('td', { className: 'num' + (extra ? ' ' + extra : ''), 'data-col': col }, [value]);
  }
  function setText(id, value) {
    $(id).textContent = value === null || value === undefined ? '' : String(value);
  }
  function fill(tbody, rows, emptyText, columns) {
    tbody.replaceChildren.apply(
      tbody,
      rows.length ? rows : [h('tr', { className: 'empty' }, [h('td', { colspan: String(columns) }, [emptyText])])],
    );
  }

  // ---- formatting ----
  function ms(value) {
    if (value === null || value === undefined) return '–';
    if (value < 1) return value.toFixed(2);
    if (value < 100) return value.toFixed(1);
    return String(Math.round(value));
  }
  function pct(rate) {
    return (rate * 100).toFixed(1) + ' %';
  }
  function count(value) {
    return Number(value).toLocaleString('en-US');
  }
  function time(iso) {
    return iso ? new Date(iso).toLocaleTimeString('en-GB') : '–';
  }
  function dateTime(iso) {
    return iso ? new Date(iso).toLocaleString('en-GB') : '–';
  }
  function ago(iso) {
    if (!iso) return '–';
    var s = Math.max(0, Math.round((Date.now() - Date.parse(iso)) / 1000));
    if (s < 60) return s + ' s ago';
    if (s < 3600) return Math.floor(s / 60) + ' min ago';
    return Math.floor(s / 3600) + ' h ago';
  }
  function duration(seconds) {
    var d = Math.floor(seconds / 86400),
      hours = Math.floor((seconds % 86400) / 3600),
      m = Math.floor((seconds % 3600) / 60);
    if (d > 0) return d + ' d ' + hours + ' h';
    if (hours > 0) return hours + ' h ' + m + ' min';
    if (m > 0) return m + ' min' + (seconds % 60 ? ' ' + (seconds % 60) + ' s' : '');
    return seconds + ' s';
  }
  function mb(bytes) {
    return (bytes / 1048576).toFixed(0) + ' MB';
  }
  function status(value) {
    return h('span', { className: 'pill s-' + value }, [value]);
  }
  function outcome(value) {
    return h(
      'span',
      { className: 'outcome ' + (value === 'ok' ? 'o-ok' : value === 'tool_error' ? 'o-warn' : 'o-bad') },
      [value],
    );
  }
  function details(object) {
    if (!object) return '';
    return Object.keys(object)
      .map(function (key) {
        var value = object[key];
        return key + ' ' + (typeof value === 'object' ? JSON.stringify(value) : String(value));
      })
      .join(' · ');
  }

  // ---- the API ----
  function storedKey() {
    try {
      return sessionStorage.getItem(KEY_STORAGE) || '';
    } catch {
      return '';
    }
  }
  /** A request to the API with the stored key; resolves to its JSON, rejects with the server's message and status. */
  function call(path, init) {
    var headers = Object.assign({ accept: 'application/json' }, init.headers);
    var key = storedKey();
    if (key) headers.authorization = 'Bearer ' + key;
    return fetch(
      BASE + '/api/' + path,
      Object.assign({}, init, { headers: headers, cache: 'no-store', credentials: 'omit' }),
    ).then(function (res) {
      return res
        .json()
        .catch(function () {
          return {};
        })
        .then(function (body) {
          if (!res.ok) {
            var error = new Error(body.message || 'HTTP ' + res.status);
            error.status = res.status;
            error.body = body;
            throw error;
          }
          return body;
        });
    });
  }
  function api(name, query) {
    return call(name + (query ? '?' + new URLSearchParams(query).toString() : ''), {});
  }
  function post(path, body) {
    return call(path, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  }
  /** The approval request this page was opened for (a link sent by URL-mode elicitation), if any. */
  function focusedApproval() {
    var match = /^#approval=([A-Za-z0-9_-]+)$/.exec(window.location.hash);
    return match ? match[1] : null;
  }
  function auditQuery() {
    var query = {};
    Object.keys(auditFilter).forEach(function (key) {
      if (auditFilter[key]) query[key] = auditFilter[key];
    });
    return query;
  }

  // ---- states: signed in, key needed, refused ----
  function notice(kind, title, message) {
    var box = $('notice');
    box.className = 'notice ' + kind;
    box.replaceChildren(h('strong', null, [title]), document.createTextNode(' ' + message));
    box.hidden = false;
  }
  function showError(error) {
    if (error.status === 401 || error.status === 403 || error.status === 429) {
      blocked = error.status !== 429;
      root.setAttribute(
        'data-state',
        error.status === 401 ? 'unauthorized' : error.status === 403 ? 'forbidden' : 'throttled',
      );
      var title =
        error.status === 401
          ? '401 Not signed in.'
          : error.status === 403
            ? '403 Forbidden.'
            : '429 Too many attempts.';
      notice('error', title, error.message);
      $('key-form').hidden = false;
      $('forget').hidden = !storedKey();
      // What this tab showed before is not for whoever holds the page now.
      $('content').hidden = true;
      setText('updated', error.status === 429 ? 'paused' : 'not signed in');
      $('key').focus();
      return;
    }
    root.setAttribute('data-state', 'error');
    $('content').classList.add('stale');
    notice(
      'warn',
      'Could not refresh:',
      error instanceof TypeError
        ? 'the key cannot be sent as a header, or the host is unreachable (' + error.message + ')'
        : error.message,
    );
  }
  function showAuthorized() {
    blocked = false;
    root.setAttribute('data-state', 'ok');
    $('notice').hidden = true;
    $('key-form').hidden = true;
    $('forget').hidden = !storedKey();
    $('content').hidden = false;
    $('content').classList.remove('stale');
  }

  // ---- panels ----
  function renderHealth(health) {
    var host = health.host;
    document.title = 'MCP admin · ' + host.name;
    setText('host-name', host.title || host.name);
    setText('host-version', host.name + ' ' + host.version + ' · ' + host.mode + ' · auth ' + host.auth);
    var overall = $('overall');
    overall.className = 'pill big s-' + health.status;
    overall.textContent = health.status;
    // Behind a load balancer, each refresh may reach another replica, with numbers of its own.
    setText('replica', 'replica ' + host.replica);
    setText('principal', 'signed in as ' + health.principal);
    setText('card-uptime', duration(host.uptimeSec));
    // With replicas sharing sessions, every replica's; this one holds copies of those it served.
    setText(
      'card-sessions',
      host.clusterSessions === null || host.clusterSessions === undefined
        ? count(host.sessions)
        : count(host.clusterSessions) + ' in the cluster',
    );
    setText('card-inflight', count(host.inFlight));
    var hostStatus = host.phase === 'ready' ? 'up' : 'down';
    var rows = [
      h('tr', { 'data-component': 'host' }, [
        td('MCP host'),
        h('td', null, [status(hostStatus)]),
        td('yes'),
        td(
          'replica ' +
            host.replica +
            ' · phase ' +
            host.phase +
            ' · ' +
            host.sessions +
            ' session(s) here' +
            (host.clusterSessions === null || host.clusterSessions === undefined
              ? ''
              : ', ' + host.clusterSessions + ' in the cluster') +
            ' · ' +
            host.inFlight +
            ' in flight · ' +
            host.catalog.tools +
            ' tools, ' +
            host.catalog.prompts +
            ' prompts, ' +
            (host.catalog.resources + host.catalog.resourceTemplates) +
            ' resources · pid ' +
            host.process.pid +
            ' · node ' +
            host.process.node +
            ' · rss ' +
            mb(host.process.rssBytes) +
            ' · up since ' +
            dateTime(host.startedAt),
        ),
      ]),
    ];
    health.dependencies.forEach(function (dependency) {
      rows.push(
        h('tr', { 'data-component': dependency.name }, [
          td(dependency.name),
          h('td', null, [status(dependency.status)]),
          td(dependency.required ? 'yes' : 'no'),
          h('td', null, [
            details(dependency.details),
            dependency.error ? h('div', { className: 'error-text' }, [dependency.error]) : null,
          ]),
        ]),
      );
    });
    fill($('health-rows'), rows, '', 4);
  }

  function statsRow(entry, attrs) {
    var latency = entry.latencyMs || {};
    return h('tr', attrs, [
      td(entry.kind, { className: 'kind' }),
      h('td', { 'data-col': 'name', className: 'name' }, [
        entry.kind === 'tool' || entry.kind === 'prompt' || entry.kind === 'resource'
          ? h(
              'button',
              { type: 'button', className: 'link', 'data-target': entry.name, title: 'Show its audit records' },
              [entry.name],
            )
          : entry.name,
      ]),
      num(count(entry.calls), 'calls'),
      num(count(entry.errors), 'errors', entry.errors > 0 ? 'bad' : ''),
      num(entry.calls ? pct(entry.errorRate) : '–', 'errorRate', entry.errorRate >= 0.05 ? 'bad' : ''),
      num(ms(latency.p50), 'p50'),
      num(ms(latency.p95), 'p95'),
      num(ms(latency.p99), 'p99'),
      num(ms(latency.max), 'max'),
      num(count(entry.total.calls), 'totalCalls', 'muted'),
      td(entry.lastCallAt ? ago(entry.lastCallAt) : 'never', { className: 'muted', 'data-col': 'lastCall' }),
      td(
        Object.keys(entry.outcomes)
          .filter(function (o) {
            return o !== 'ok';
          })
          .map(function (o) {
            return o + ' ' + entry.outcomes[o];
          })
          .join(', '),
        { className: 'muted small' },
      ),
    ]);
  }
  function renderStats(stats) {
    setText('stats-window', 'last ' + stats.windowMinutes + ' min');
    setText('card-requests-label', 'Requests (' + stats.windowMinutes + ' min)');
    setText('card-requests', count(stats.requests.calls));
    setText('card-errors', stats.requests.calls ? pct(stats.requests.errorRate) : '–');
    setText('card-p95', stats.requests.latencyMs ? ms(stats.requests.latencyMs.p95) + ' ms' : '–');
    fill(
      $('stats-rows'),
      stats.entries.map(function (entry) {
        return statsRow(entry, { 'data-entry': entry.kind + ':' + entry.name, className: entry.calls ? '' : 'idle' });
      }),
      'Nothing in the catalog yet.',
      12,
    );
    var all = Object.assign({ kind: '', name: 'all requests' }, stats.requests, { lastCallAt: null });
    var total = statsRow(all, { 'data-entry': 'all' });
    total.children[1].textContent = 'All requests (lists, initialize, refusals too)';
    total.children[10].textContent = '';
    $('stats-total').replaceChildren(total);
  }

  function renderSessions(data) {
    setText('session-count', count(data.count));
    setText(
      'sessions-meta',
      data.mode === 'stateless'
        ? 'stateless mode: no sessions are kept'
        : 'at most ' + count(data.max) + ' · idle ones end after ' + duration(Math.round(data.idleTtlMs / 1000)),
    );
    fill(
      $('session-rows'),
      data.sessions.map(function (session) {
        return h('tr', { 'data-session': session.id }, [
          h('td', { className: 'mono', title: session.id }, [
            session.id.length > 13 ? session.id.slice(0, 8) + '…' : session.id,
          ]),
          td(session.principal || '–'),
          td(session.client ? session.client.name + ' ' + session.client.version : '–'),
          td(session.protocolVersion),
          td(session.transport + (session.stream ? ' + stream' : '')),
          td(time(session.createdAt)),
          td(ago(session.lastSeenAt)),
          num(count(session.inFlight), 'inFlight', session.inFlight > 0 ? 'busy' : ''),
        ]);
      }),
      'No live sessions.',
      8,
    );
  }

  function renderAudit(page) {
    $('audit-off').hidden = page.enabled;
    $('audit-table').hidden = !page.enabled;
    if (!page.enabled) return;
    var health = page.health;
    setText(
      'audit-meta',
      health
        ? 'sink ' +
            health.sink +
            ' · ' +
            health.policy +
            ' · ' +
            health.state +
            ' · written ' +
            count(health.written) +
            ' · queued ' +
            count(health.queued) +
            ' · dropped ' +
            count(health.dropped)
        : '',
    );
    fill(
      $('audit-rows'),
      page.records.map(function (record) {
        return h('tr', { 'data-record': record.id }, [
          td(time(record.time), { className: 'nowrap', title: record.time }),
          td(record.principal || '–'),
          td(record.method || '(transport)', { className: 'mono' }),
          td(record.target || '–', { className: 'mono' }),
          h('td', null, [outcome(record.outcome)]),
          num(record.errorCode === null ? '' : record.errorCode, 'code'),
          num(ms(record.latencyMs), 'latency'),
          td(record.error || '', { className: 'error-text' }),
        ]);
      }),
      'No records match.',
      8,
    );
  }

  function access(entry) {
    var parts = [];
    if (entry.access.scopes.length) parts.push('scopes: ' + entry.access.scopes.join(' '));
    if (entry.access.roles.length) parts.push('role: ' + entry.access.roles.join(' | '));
    return parts.length ? parts.join('; ') : 'open';
  }
  function throttle(entry) {
    if (!entry.throttle) return '–';
    return entry.throttle
      .map(function (t) {
        if (t.skipped) return t.throttler + ': skipped';
        var limit = t.limit === null ? 'dynamic' : t.limit;
        var ttl = t.ttlMs === null ? 'dynamic' : t.ttlMs >= 1000 ? t.ttlMs / 1000 + ' s' : t.ttlMs + ' ms';
        return (
          t.throttler + ': ' + limit + ' / ' + ttl + (t.source === 'module' ? '' : ' (@Throttle on ' + t.source + ')')
        );
      })
      .join('; ');
  }
  function schema(label, value) {
    if (!value) return null;
    return h('details', null, [h('summary', null, [label]), h('pre', null, [JSON.stringify(value, null, 2)])]);
  }
  function renderCatalog(catalog) {
    var json = JSON.stringify(catalog);
    if (json === catalogJson) return; // keep open <details> as they are
    catalogJson = json;
    setText(
      'catalog-meta',
      catalog.tools.length +
        ' tools · ' +
        catalog.prompts.length +
        ' prompts · ' +
        catalog.resources.length +
        ' resources · ' +
        catalog.resourceTemplates.length +
        ' templates' +
        (catalog.throttlers
          ? ' · throttlers: ' +
            catalog.throttlers
              .map(function (t) {
                return (
                  t.name +
                  ' ' +
                  (t.limit === null ? 'dynamic' : t.limit) +
                  ' / ' +
                  (t.ttlMs === null ? 'dynamic' : t.ttlMs / 1000 + ' s')
                );
              })
              .join(', ')
          : ' · no ThrottlerModule'),
    );
    fill(
      $('tool-rows'),
      catalog.tools.map(function (tool) {
        var d = tool.definition;
        var a = d.annotations || {};
        var hints = [];
        if (a.readOnlyHint) hints.push(h('span', { className: 'badge b-ro' }, ['read-only']));
        if (a.destructiveHint) hints.push(h('span', { className: 'badge b-destructive' }, ['destructive']));
        if (a.idempotentHint) hints.push(h('span', { className: 'badge' }, ['idempotent']));
        if (a.openWorldHint) hints.push(h('span', { className: 'badge' }, ['open-world']));
        if (tool.confirm) hints.push(h('span', { className: 'badge b-confirm' }, ['confirmed']));
        if (tool.task) hints.push(h('span', { className: 'badge' }, ['task ' + tool.task]));
        return h('tr', { 'data-tool': tool.name }, [
          h('td', null, [
            h('div', { className: 'mono strong' }, [tool.name]),
            d.title || a.title ? h('div', { className: 'muted small' }, [d.title || a.title]) : null,
          ]),
          h('td', { className: 'desc' }, [d.description || '']),
          h('td', null, hints),
          td(access(tool), { className: 'small' }),
          td(throttle(tool), { className: 'small nowrap' }),
          td(
            'timeout ' +
              tool.timeoutMs / 1000 +
              ' s' +
              (tool.maxConcurrency ? ' · max ' + tool.maxConcurrency + ' at once' : ''),
            { className: 'small nowrap' },
          ),
          h('td', null, [schema('input', d.inputSchema), schema('output', d.outputSchema)]),
        ]);
      }),
      'No tools.',
      7,
    );
    fill(
      $('prompt-rows'),
      catalog.prompts.map(function (prompt) {
        var args = (prompt.definition.arguments || [])
          .map(function (arg) {
            return arg.name + (arg.required ? '' : '?');
          })
          .join(', ');
        return h('tr', null, [
          td(prompt.name, { className: 'mono strong' }),
          td(prompt.definition.description || '', { className: 'desc' }),
          td(args || '–', { className: 'mono' }),
          td(access(prompt), { className: 'small' }),
          td(throttle(prompt), { className: 'small' }),
        ]);
      }),
      'No prompts.',
      5,
    );
    var resources = catalog.resources
      .map(function (r) {
        return { uri: r.name, kind: 'resource', d: r.definition, entry: r };
      })
      .concat(
        catalog.resourceTemplates.map(function (r) {
          return { uri: r.name, kind: 'template', d: r.definition, entry: r };
        }),
      );
    fill(
      $('resource-rows'),
      resources.map(function (r) {
        return h('tr', null, [
          td(r.uri, { className: 'mono strong' }),
          td(r.kind),
          td(r.d.name || ''),
          td(r.d.description || '', { className: 'desc' }),
          td(r.d.mimeType || '–'),
          td(access(r.entry), { className: 'small' }),
        ]);
      }),
      'No resources.',
      6,
    );
  }

  function renderApprovals(list, canDecide) {
    $('approvals-off').hidden = list !== null;
    $('approvals-table').hidden = list === null;
    if (list === null) {
      setText('approvals-off', 'This key may not decide approval requests (it needs an approver role or scope).');
      setText('approval-count', '–');
      return;
    }
    var waiting = list.filter(function (a) {
      return a.status === 'pending';
    }).length;
    setText('approval-count', count(waiting) + ' waiting');
    fill(
      $('approval-rows'),
      list.slice(0, 50).map(function (a) {
        var decision =
          a.status === 'pending' && canDecide
            ? h('div', { className: 'decide' }, [
                h('input', { 'data-reason': a.id, placeholder: 'reason (optional)', 'aria-label': 'reason' }),
                h('button', { type: 'button', className: 'approve', 'data-decide': 'approve', 'data-id': a.id }, [
                  'Approve',
                ]),
                h('button', { type: 'button', className: 'deny', 'data-decide': 'deny', 'data-id': a.id }, ['Deny']),
              ])
            : a.decidedBy
              ? a.decidedBy + (a.reason ? ': ' + a.reason : '')
              : '';
        return h('tr', { 'data-approval': a.id, 'data-status': a.status }, [
          td(time(a.createdAt), { className: 'nowrap', title: a.createdAt }),
          td(a.principal + (a.client ? ' · ' + a.client.name : '')),
          td(a.tool, { className: 'mono strong' }),
          h('td', { className: 'args' }, [h('pre', null, [JSON.stringify(a.arguments, null, 2)])]),
          td(a.question + (a.status === 'pending' ? ' (expires ' + time(a.expiresAt) + ')' : ''), {
            className: 'small desc',
          }),
          h('td', null, [
            h(
              'span',
              {
                className:
                  'outcome ' +
                  (a.status === 'approved' || a.status === 'used'
                    ? 'o-ok'
                    : a.status === 'pending'
                      ? 'o-warn'
                      : 'o-bad'),
              },
              [a.status],
            ),
          ]),
          h('td', null, [decision]),
        ]);
      }),
      'No approval requests.',
      7,
    );
  }
  function decide(id, decision) {
    var reasonInput = document.querySelector('input[data-reason="' + id + '"]');
    return postDecision(
      'approvals/' + encodeURIComponent(id) + '/' + decision,
      { reason: reasonInput ? reasonInput.value.trim() : '' },
      decision === 'approve' ? 'approved' : 'denied',
    );
  }
  /** A decision (an approval request's, a pin's): the page refreshed, or what refused it said. */
  function postDecision(path, body, done) {
    return post(path, body).then(
      function () {
        return refresh(true);
      },
      function (error) {
        // A refused decision (someone else's call only, already decided) leaves the page as it is.
        if (error.status === 401 || error.status === 429) return showError(error);
        return refresh(true).then(function () {
          notice('error', 'Not ' + done + ':', error.message);
        });
      },
    );
  }
  /** A value of a pinned definition as the reviewer reads it: text as it is, schemas as JSON. */
  function shown(value) {
    if (value === undefined) return '(none)';
    return typeof value === 'string' ? value : JSON.stringify(value, null, 2);
  }
  /**
   * The quarantined definitions of pinned upstreams and APIs (null: nothing is pinned here, the
   * panel stays hidden), each with its difference and what in it addresses the model.
   */
  function renderPins(reply) {
    $('pins-panel').hidden = reply === null;
    if (reply === null) return;
    var waiting = reply.quarantined.filter(function (p) {
      return p.state !== 'rejected';
    }).length;
    setText('pin-count', count(waiting) + ' to review · ' + count(reply.accepted) + ' pinned');
    fill(
      $('pin-rows'),
      reply.quarantined.map(function (p) {
        return h('tr', { 'data-pin': p.id, 'data-state': p.state }, [
          td(time(p.seenAt), { className: 'nowrap', title: p.seenAt }),
          h('td', null, [
            h('div', { className: 'mono strong' }, [p.name]),
            h('div', { className: 'muted small' }, [
              p.kind + ' of ' + (p.origin === 'upstream' ? 'upstream ' : 'API ') + p.source + ' · ' + p.state,
            ]),
          ]),
          h(
            'td',
            { className: 'pin-diff' },
            p.changes.map(function (c) {
              return h('div', { className: 'change' }, [
                h('div', { className: 'field' }, [c.field]),
                h('pre', { className: 'before' }, [shown(c.before)]),
                h('pre', { className: 'after' }, [shown(c.after)]),
              ]);
            }),
          ),
          h(
            'td',
            { className: 'small' },
            p.flags.length === 0
              ? ['–']
              : p.flags.map(function (f) {
                  return h('div', { className: 'flag' }, [
                    h('span', { className: 'outcome o-bad' }, [f.rule]),
                    ' ' + f.in + ': ',
                    h('code', null, [f.excerpt]),
                  ]);
                }),
          ),
          h('td', null, [
            h('div', { className: 'decide' }, [
              h(
                'button',
                {
                  type: 'button',
                  className: 'approve',
                  'data-pin-decide': 'approve',
                  'data-id': p.id,
                  'data-fingerprint': p.fingerprint,
                },
                ['Approve'],
              ),
              p.state === 'rejected'
                ? h('span', { className: 'muted small' }, ['rejected by ' + p.rejected.by])
                : h(
                    'button',
                    {
                      type: 'button',
                      className: 'deny',
                      'data-pin-decide': 'reject',
                      'data-id': p.id,
                      'data-fingerprint': p.fingerprint,
                    },
                    ['Reject'],
                  ),
            ]),
          ]),
        ]);
      }),
      'Nothing waits for review: every pinned definition is the approved one.',
      5,
    );
  }
  function decidePin(id, fingerprint, decision) {
    return postDecision(
      'pins/' + decision,
      { id: id, fingerprint: fingerprint },
      decision === 'approve' ? 'approved' : 'rejected',
    );
  }
  /** The authorization server's sign-ins (null: this host has none, the panel stays hidden). */
  function renderGrants(grants) {
    $('oauth-panel').hidden = grants === null;
    if (grants === null) return;
    setText('grant-count', count(grants.length));
    setText(
      'oauth-meta',
      rotation
        ? 'new signing key ' +
            rotation.kid +
            ' signs from ' +
            time(rotation.activatesAt) +
            '; tokens signed before stay valid'
        : 'people signed in through the authorization server, per client',
    );
    function revoke(field, value, label, title) {
      return h(
        'button',
        { type: 'button', className: 'deny', 'data-revoke': field, 'data-value': value, title: title },
        [label],
      );
    }
    fill(
      $('grant-rows'),
      grants.map(function (g) {
        return h('tr', { 'data-grant': g.id, 'data-subject': g.subject, 'data-client': g.clientId }, [
          td(g.subject, { className: 'strong' }),
          td(g.clientId, { className: 'mono small', title: g.clientId }),
          td(g.scopes.join(' ') || '–', { className: 'mono small' }),
          td(g.roles.join(', ') || '–', { className: 'small' }),
          td(time(g.createdAt), { className: 'nowrap', title: g.createdAt }),
          td(g.lastRefreshedAt ? ago(g.lastRefreshedAt) : 'never', { className: 'nowrap' }),
          td(dateTime(g.expiresAt), { className: 'nowrap', title: g.expiresAt }),
          h('td', null, [
            h('div', { className: 'decide' }, [
              revoke('grantId', g.id, 'This sign-in', 'end this sign-in: its refresh token stops working'),
              revoke('subject', g.subject, 'All of ' + g.subject, 'end every sign-in of this person'),
              revoke('clientId', g.clientId, 'All of this client', 'end every sign-in through this client'),
            ]),
          ]),
        ]);
      }),
      'Nobody is signed in.',
      8,
    );
  }
  /** The approvals people gave the authorization server's clients, each revocable (it also ends their sign-ins). */
  function renderConsents(consents) {
    setText('consent-count', count(consents.length));
    fill(
      $('consent-rows'),
      consents.map(function (c) {
        return h('tr', { 'data-subject': c.subject, 'data-client': c.clientId }, [
          td(c.subject, { className: 'strong' }),
          td((c.clientName || '(unnamed)') + ' \u2014 ' + c.clientId, { className: 'mono small', title: c.clientId }),
          td(c.redirectHost, { className: 'mono small' }),
          td(c.scopes.join(' ') || '\u2013', { className: 'mono small' }),
          td(time(c.approvedAt), { className: 'nowrap', title: c.approvedAt }),
          h('td', null, [
            h(
              'button',
              {
                type: 'button',
                className: 'deny',
                'data-consent-subject': c.subject,
                'data-consent-client': c.clientId,
                title: 'forget this approval (asked again next time) and end its sign-ins',
              },
              ['Revoke'],
            ),
          ]),
        ]);
      }),
      'No one has approved a client.',
      6,
    );
  }
  function revokeConsent(subject, clientId) {
    return post('oauth/consents/revoke', { subject: subject, clientId: clientId }).then(
      function (reply) {
        return refresh(true).then(function () {
          notice('ok', 'Revoked:', reply.consents + ' approval(s) forgotten, ' + reply.signIns + ' sign-in(s) ended.');
        });
      },
      function (error) {
        if (error.status === 401 || error.status === 429) return showError(error);
        notice('error', 'Not revoked:', error.message);
      },
    );
  }
  /** Clients approved by an administrator, and those waiting for one (approvedClientsOnly). */
  function renderClients(clients) {
    var rows = clients.requested
      .map(function (c) {
        return { client: c, state: 'waiting' };
      })
      .concat(
        clients.approved.map(function (c) {
          return { client: c, state: 'approved' };
        }),
      );
    setText(
      'client-meta',
      clients.approvedClientsOnly
        ? 'people may approve only the clients approved here'
        : 'any client may ask people (approvedClientsOnly is off)',
    );
    fill(
      $('client-rows'),
      rows.map(function (row) {
        var c = row.client;
        var decision = row.state === 'waiting' ? 'approve' : 'withdraw';
        return h('tr', { 'data-client': c.clientId, 'data-state': row.state }, [
          td((c.name || '(unnamed)') + ' \u2014 ' + c.clientId, { className: 'mono small', title: c.clientId }),
          td(c.source, { className: 'small' }),
          td(c.redirectUris.join(' '), { className: 'mono small' }),
          td(row.state === 'waiting' ? 'waiting since ' + time(c.at) : 'approved by ' + c.approvedBy, {
            className: 'small',
          }),
          h('td', null, [
            h(
              'button',
              {
                type: 'button',
                className: decision === 'approve' ? 'approve' : 'deny',
                'data-client-decide': decision,
                'data-value': c.clientId,
              },
              [decision === 'approve' ? 'Approve' : 'Withdraw'],
            ),
          ]),
        ]);
      }),
      'No client has asked for an approval.',
      5,
    );
  }
  function decideClient(clientId, decision) {
    return postDecision(
      'oauth/clients/' + decision,
      { clientId: clientId },
      decision === 'approve' ? 'approved' : 'withdrawn',
    );
  }
  /** Revokes sign-ins by one field (grantId, subject or clientId) and shows how many ended. */
  function revokeGrants(field, value) {
    var filter = {};
    filter[field] = value;
    return post('oauth/revoke', filter).then(
      function (reply) {
        return refresh(true).then(function () {
          notice('ok', 'Revoked:', reply.revoked + ' sign-in' + (reply.revoked === 1 ? '' : 's') + ' ended.');
        });
      },
      function (error) {
        if (error.status === 401 || error.status === 429) return showError(error);
        notice('error', 'Not revoked:', error.message);
      },
    );
  }
  function rotateKey() {
    return post('oauth/keys/rotate', {}).then(
      function (reply) {
        rotation = reply;
        return refresh(true);
      },
      function (error) {
        if (error.status === 401 || error.status === 429) return showError(error);
        notice('error', 'Not rotated:', error.message);
      },
    );
  }
  /** The page opened from an approval link: only that request, for whoever it was sent to. */
  function refreshFocused(id) {
    busy = true;
    return api('approvals/' + encodeURIComponent(id))
      .then(function (reply) {
        showAuthorized();
        renderApprovals([reply.approval], reply.mayDecide !== false);
        // The account that made the call cannot vouch that a person decided: an approver must.
        setText(
          'approvals-meta',
          reply.mayDecide === false && reply.approval.status === 'pending'
            ? 'An approver must decide this call: sign in with an approver\u2019s key or token, not the one the calling program uses.'
            : 'calls held until a person approves them',
        );
        setText('principal', '');
        setText('updated', 'updated ' + new Date().toLocaleTimeString('en-GB'));
        refreshes++;
        root.setAttribute('data-refreshes', String(refreshes));
      })
      .catch(showError)
      .then(function () {
        busy = false;
      });
  }

  // ---- charts (inline SVG drawn here: no chart library, nothing from another origin) ----
  var SVG = 'http://www.w3.org/2000/svg';
  var W = 600;
  var H = 160;
  var TOP = 14;
  var BOTTOM = 18;
  function svg(tag, attrs) {
    var node = document.createElementNS(SVG, tag);
    Object.keys(attrs).forEach(function (name) {
      node.setAttribute(name, attrs[name]);
    });
    return node;
  }
  /** Nice upper bound of a chart's scale. */
  function ceiling(value) {
    if (!(value > 0)) return 1;
    var power = Math.pow(10, Math.floor(Math.log10(value)));
    var steps = [1, 2, 5, 10];
    for (var i = 0; i < steps.length; i++) if (value <= steps[i] * power) return steps[i] * power;
    return 10 * power;
  }
  function label(value) {
    return value >= 100 ? String(Math.round(value)) : String(Math.round(value * 100) / 100);
  }
  /**
   * Draws `series` ([{ values, className, dashed, area }]) over the minutes of the last hour:
   * a grid with the scale's top and the hour's start and end, then one line per series (a gap
   * where a value is null).
   */
  function drawChart(id, minutes, series) {
    var chart = $(id);
    while (chart.firstChild) chart.removeChild(chart.firstChild);
    var max = 0;
    series.forEach(function (s) {
      s.values.forEach(function (v) {
        if (v !== null && v > max) max = v;
      });
    });
    var top = ceiling(max);
    var x = function (i) {
      return (i / (minutes.length - 1)) * W;
    };
    var y = function (v) {
      return TOP + (1 - v / top) * (H - TOP - BOTTOM);
    };
    [0, 0.5, 1].forEach(function (f) {
      chart.appendChild(svg('line', { class: 'grid', x1: 0, x2: W, y1: y(top * f), y2: y(top * f) }));
    });
    var text = function (content, attrs) {
      var node = svg('text', Object.assign({ class: 'axis-label' }, attrs));
      node.textContent = content;
      chart.appendChild(node);
    };
    text(label(top), { x: 2, y: TOP - 3 });
    text(time(new Date(minutes[0]).toISOString()), { x: 2, y: H - 4 });
    text('now', { x: W - 2, y: H - 4, 'text-anchor': 'end' });
    series.forEach(function (s) {
      var points = [];
      var flush = function () {
        if (points.length === 0) return;
        var text = points.map(function (p) {
          return p[0] + ',' + p[1];
        });
        if (s.area && points.length > 1)
          chart.appendChild(
            svg('polygon', {
              class: 'area ' + s.className,
              points: text.concat([points[points.length - 1][0] + ',' + y(0), points[0][0] + ',' + y(0)]).join(' '),
            }),
          );
        if (points.length > 1)
          chart.appendChild(
            svg('polyline', { class: 'line ' + s.className + (s.dashed ? ' dashed' : ''), points: text.join(' ') }),
          );
        // A minute alone (calls only now, or between quiet minutes) is a dot.
        else
          chart.appendChild(
            svg('circle', { class: 'dot ' + s.className, cx: points[0][0], cy: points[0][1], r: s.dashed ? 2.5 : 3.5 }),
          );
        points = [];
      };
      s.values.forEach(function (v, i) {
        if (v === null) flush();
        else points.push([x(i), y(v)]);
      });
      flush();
    });
    chart.setAttribute('data-max', String(max));
  }
  function perSecond(counts) {
    return counts.map(function (n) {
      return n / 60;
    });
  }
  function renderHistory(history) {
    setText(
      'charts-meta',
      'tool calls per minute on replica ' +
        history.replica +
        ' (each replica counts its own; Prometheus and the Grafana board in docker/ show them all)',
    );
    drawChart('chart-calls', history.minutes, [
      { values: perSecond(history.total.calls), className: 'series-0', area: true },
    ]);
    drawChart('chart-errors', history.minutes, [
      { values: perSecond(history.total.errors), className: 'series-1', area: true },
    ]);
    var busiest = history.tools.slice(0, 3);
    var lines = [];
    var legend = $('chart-legend');
    while (legend.firstChild) legend.removeChild(legend.firstChild);
    busiest.forEach(function (tool, index) {
      var className = 'series-' + index;
      lines.push({ values: tool.p50, className: className });
      lines.push({ values: tool.p95, className: className, dashed: true });
      legend.appendChild(h('li', {}, [h('span', { class: 'swatch ' + className }), tool.name + ' (p50, p95 dashed)']));
    });
    drawChart('chart-latency', history.minutes, lines);
  }
  function renderServers(list) {
    var panel = $('servers-panel');
    if (!list) {
      panel.hidden = true;
      return;
    }
    panel.hidden = false;
    setText(
      'servers-meta',
      'version ' +
        list.version +
        (list.updatedBy ? ', changed by ' + list.updatedBy + ' ' + ago(list.updatedAt) : '') +
        ' — add, change and remove them with ' +
        BASE +
        '/api/servers',
    );
    fill(
      $('server-rows'),
      list.upstreams.map(function (upstream) {
        var s = upstream.status || {};
        return h('tr', { 'data-upstream': upstream.name }, [
          td(upstream.name),
          td(upstream.transport.url, { class: 'mono small' }),
          td(status(s.state === 'connected' ? 'up' : s.state ? 'down' : 'unknown')),
          td(s.circuit || '–'),
          num(s.latencyP50Ms === undefined ? '–' : ms(s.latencyP50Ms)),
          num(count(s.requests || 0)),
          num(count(s.failures || 0)),
          td((upstream.scopes || []).join(', ') || '–'),
        ]);
      }),
      'No upstream added at run time yet.',
      8,
    );
  }

  // ---- the charts of each replica, when clustered (GET history?replica=) ----
  var chartReplica = ''; // '' : the replica that answers
  /** The charts of the chosen replica; that replica gone, the answering one's again. */
  function chartHistory() {
    if (!chartReplica) return api('history');
    return api('history', { replica: chartReplica }).catch(function (error) {
      if (error.status !== 404) throw error;
      chartReplica = '';
      return api('history');
    });
  }
  /** The replica choice, shown when there are several; another replica's charts say how old they are. */
  function renderReplicaChoice(history) {
    var replicas = history.replicas || [];
    $('chart-replica-label').hidden = replicas.length < 2;
    var select = $('chart-replica');
    var options = replicas.map(function (name) {
      return h('option', { value: name }, [name]);
    });
    select.replaceChildren.apply(select, options);
    select.value = history.replica;
    if (history.publishedAt)
      setText(
        'charts-meta',
        'tool calls per minute on replica ' +
          history.replica +
          ', as it published them ' +
          ago(new Date(history.publishedAt).toISOString()),
      );
  }
  function startReplicaChoice() {
    $('chart-replica').addEventListener('change', function () {
      chartReplica = $('chart-replica').value;
      refresh(true);
    });
  }

  // ---- managing virtual servers: forms posting to the admin API (servers/{upstreams,apis,composed}) ----
  var MANAGED = {
    upstreams: { route: 'servers/upstreams', label: 'upstream' },
    apis: { route: 'servers/apis', label: 'REST API' },
    servers: { route: 'servers/composed', label: 'composed server' },
  };
  var managed = null; // the document as last read: { version, upstreams, apis, servers }
  function pathGet(object, path) {
    return path.split('.').reduce(function (value, key) {
      return value === undefined || value === null ? undefined : value[key];
    }, object);
  }
  function pathSet(object, path, value) {
    var keys = path.split('.');
    var at = object;
    keys.slice(0, -1).forEach(function (key) {
      if (typeof at[key] !== 'object' || at[key] === null) at[key] = {};
      at = at[key];
    });
    at[keys[keys.length - 1]] = value;
  }
  function pathDelete(object, path) {
    var keys = path.split('.');
    var parent = pathGet(object, keys.slice(0, -1).join('.')) || (keys.length === 1 ? object : undefined);
    if (parent && typeof parent === 'object') delete parent[keys[keys.length - 1]];
  }
  /** The entry a form describes: its "more" JSON, then each filled field at its path. Throws naming a field that is not JSON. */
  function entryOf(form) {
    var entry = {};
    var more = form.elements.namedItem('_more');
    if (more && more.value.trim()) {
      try {
        entry = JSON.parse(more.value);
      } catch {
        throw { field: '_more', message: 'is not JSON' };
      }
    }
    Array.from(form.elements).forEach(function (input) {
      if (!input.name || input.name === '_more' || input.type === 'submit' || input.type === 'reset') return;
      var value = input.value.trim();
      if (!value) return;
      var type = input.getAttribute('data-type');
      if (type === 'list')
        value = value
          .split(',')
          .map(function (word) {
            return word.trim();
          })
          .filter(Boolean);
      else if (type === 'int') value = /^\d+$/.test(value) ? Number(value) : value;
      else if (type === 'json') {
        try {
          value = JSON.parse(value);
        } catch {
          throw { field: input.name, message: 'is not JSON' };
        }
      }
      pathSet(entry, input.name, value);
    });
    return entry;
  }
  /** Fills a form with a stored entry (credentials as [REDACTED]: saved so, they are kept). */
  function fillForm(form, entry) {
    form.reset();
    clearProblems(form);
    var rest = JSON.parse(JSON.stringify(entry));
    delete rest.status;
    Array.from(form.elements).forEach(function (input) {
      if (!input.name || input.name === '_more' || input.type === 'hidden') return;
      var value = pathGet(entry, input.name);
      pathDelete(rest, input.name);
      if (value === undefined) return;
      var type = input.getAttribute('data-type');
      input.value =
        type === 'list' ? value.join(', ') : type === 'json' ? JSON.stringify(value, null, 1) : String(value);
    });
    if (form.getAttribute('data-kind') === 'upstreams') pathDelete(rest, 'transport.type');
    if (rest.transport && Object.keys(rest.transport).length === 0) delete rest.transport;
    if (rest.credentials && Object.keys(rest.credentials).length === 0) delete rest.credentials;
    if (rest.limits && Object.keys(rest.limits).length === 0) delete rest.limits;
    var more = form.elements.namedItem('_more');
    if (more) more.value = Object.keys(rest).length > 0 ? JSON.stringify(rest) : '';
    form.elements.namedItem('name').focus();
  }
  function clearProblems(form) {
    form.querySelectorAll('.field-error').forEach(function (p) {
      p.textContent = '';
    });
    form.querySelectorAll('[aria-invalid]').forEach(function (input) {
      input.removeAttribute('aria-invalid');
    });
    form.querySelector('.form-errors').replaceChildren();
  }
  /**
   * Shows each problem of the validation's answer at its field: `servers[2].path` is the path
   * field of the entry saved (index `at` of its list); what names no field of it (another entry,
   * the document) is listed under the form.
   */
  function showProblems(form, problems, at) {
    clearProblems(form);
    var kind = form.getAttribute('data-kind');
    var fields = Array.from(form.querySelectorAll('.field-error')).map(function (p) {
      return p.getAttribute('data-for');
    });
    problems.forEach(function (problem) {
      var match = new RegExp('^' + kind + '\\[(\\d+)\\]\\.?(.*)$').exec(problem.where);
      var path = match && Number(match[1]) === at ? match[2] : null;
      var field =
        path === null
          ? undefined
          : fields
              .filter(function (name) {
                return path === name || path.indexOf(name + '.') === 0 || path.indexOf(name + '[') === 0;
              })
              .sort(function (a, b) {
                return b.length - a.length;
              })[0];
      var text =
        (field === path || !path
          ? ''
          : path.slice(field ? field.length + (path.charAt(field.length) === '.' ? 1 : 0) : 0) + ': ') +
        problem.problem;
      if (field) {
        var box = form.querySelector('.field-error[data-for="' + field + '"]');
        box.textContent =
          (box.textContent ? box.textContent + ' · ' : '') + text + (problem.fix ? ' — ' + problem.fix : '');
        var input = form.querySelector('[name="' + field + '"]') || form.querySelector('[name^="' + field + '."]');
        if (input) input.setAttribute('aria-invalid', 'true');
      } else
        form
          .querySelector('.form-errors')
          .appendChild(
            h('li', null, [problem.where + ': ' + problem.problem + (problem.fix ? ' — ' + problem.fix : '')]),
          );
    });
  }
  function manageStatus(kind, message) {
    var box = $('manage-status');
    box.className = 'manage-status small ' + kind;
    box.textContent = message;
    box.hidden = false;
  }
  function saveEntry(form) {
    var kind = form.getAttribute('data-kind');
    var entry;
    try {
      entry = entryOf(form);
    } catch (problem) {
      showProblems(form, [{ where: kind + '[-1].' + problem.field, problem: problem.message }], -1);
      return Promise.resolve();
    }
    var list = (managed && managed[kind]) || [];
    var at = list.findIndex(function (item) {
      return item.name === entry.name;
    });
    if (at < 0) at = list.length;
    var query = managed ? '?version=' + managed.version : '';
    return call(MANAGED[kind].route + query, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(entry),
    }).then(
      function () {
        clearProblems(form);
        form.reset();
        manageStatus('ok', 'Saved the ' + MANAGED[kind].label + ' ' + entry.name + '.');
        return refresh(true);
      },
      function (error) {
        var problems = error.body && error.body.problems;
        if (error.status === 422 && problems) {
          showProblems(form, problems, at);
          manageStatus('error', 'Not saved: ' + problems.length + ' problem(s), shown at their fields.');
        } else if (error.status === 409) {
          manageStatus(
            'error',
            'Not saved: someone changed them meanwhile. Read them again (Refresh) and save once more.',
          );
        } else
          manageStatus(
            'error',
            'Not saved: ' + (error.body && error.body.message ? error.body.message : error.message),
          );
      },
    );
  }
  function removeEntry(kind, name) {
    return call(MANAGED[kind].route + '/' + encodeURIComponent(name) + (managed ? '?version=' + managed.version : ''), {
      method: 'DELETE',
    }).then(
      function () {
        manageStatus('ok', 'Removed the ' + MANAGED[kind].label + ' ' + name + '.');
        return refresh(true);
      },
      function (error) {
        var problems = (error.body && error.body.problems) || [];
        manageStatus(
          'error',
          'Not removed: ' +
            (problems.length
              ? problems
                  .map(function (p) {
                    return p.where + ': ' + p.problem;
                  })
                  .join('; ')
              : error.message),
        );
      },
    );
  }
  function renderManaged(document) {
    managed = document;
    var rows = [];
    var button = function (label, action, kind, name) {
      return h('button', { type: 'button', 'data-manage': action, 'data-kind': kind, 'data-name': name }, [label]);
    };
    var actions = function (kind, name) {
      return h('td', null, [button('Edit', 'edit', kind, name), ' ', button('Remove', 'remove', kind, name)]);
    };
    (document.upstreams || []).forEach(function (u) {
      rows.push(
        h('tr', { 'data-managed': 'upstreams:' + u.name }, [
          td('upstream'),
          td(u.name),
          td(u.transport && u.transport.url, { class: 'mono small' }),
          td((u.prefix ? u.prefix + '__* ' : '') + ((u.scopes || []).length ? 'for ' + u.scopes.join(', ') : '')),
          actions('upstreams', u.name),
        ]),
      );
    });
    (document.apis || []).forEach(function (a) {
      rows.push(
        h('tr', { 'data-managed': 'apis:' + a.name }, [
          td('REST API'),
          td(a.name),
          td(a.document, { class: 'mono small' }),
          td((a.prefix || '') + '* ' + ((a.scopes || []).length ? 'for ' + a.scopes.join(', ') : '')),
          actions('apis', a.name),
        ]),
      );
    });
    (document.servers || []).forEach(function (s) {
      rows.push(
        h('tr', { 'data-managed': 'servers:' + s.name }, [
          td('composed server'),
          td(s.title ? s.name + ' (' + s.title + ')' : s.name),
          td(s.path, { class: 'mono small' }),
          td(
            s.select
              .map(function (item) {
                return (
                  item.from + (item.name ? ' ' + item.name : '') + (item.entries ? ' ' + item.entries.join(' ') : '')
                );
              })
              .join(' · '),
          ),
          actions('servers', s.name),
        ]),
      );
    });
    fill($('manage-rows'), rows, 'Nothing added at run time yet: use the forms below.', 5);
    setText(
      'manage-meta',
      'version ' +
        document.version +
        (document.updatedBy ? ', changed by ' + document.updatedBy + ' ' + ago(document.updatedAt) : ''),
    );
  }
  /** Reads the document (the forms' lists) when the host has virtual servers; hides the panel otherwise. */
  function loadManaged(enabled) {
    $('manage-panel').hidden = !enabled;
    if (!enabled) return;
    api('servers/document').then(renderManaged, function () {
      /* the next refresh says why */
    });
  }
  function startManaging() {
    ['form-upstreams', 'form-apis', 'form-servers'].forEach(function (id) {
      var form = $(id);
      form.addEventListener('submit', function (event) {
        event.preventDefault();
        var submit = form.querySelector('button[type="submit"]');
        submit.disabled = true;
        saveEntry(form).then(function () {
          submit.disabled = false;
        });
      });
      form.addEventListener('reset', function () {
        clearProblems(form);
      });
    });
    $('manage-rows').addEventListener('click', function (event) {
      var button = event.target.closest('button[data-manage]');
      if (!button) return;
      var kind = button.getAttribute('data-kind');
      var name = button.getAttribute('data-name');
      if (button.getAttribute('data-manage') === 'remove') {
        button.disabled = true;
        removeEntry(kind, name);
        return;
      }
      var entry = ((managed && managed[kind]) || []).find(function (item) {
        return item.name === name;
      });
      if (entry) fillForm($('form-' + kind), entry);
    });
  }

  // ---- refresh loop ----
  function refresh(force) {
    if (busy || (blocked && !force) || (document.hidden && !force)) return Promise.resolve();
    var focused = focusedApproval();
    if (focused) return refreshFocused(focused);
    busy = true;
    // An approver who is no administrator sees the approvals only; an administrator who is no
    // approver sees the rest. Whoever is neither gets the refusal.
    var approvals = api('approvals').then(
      function (reply) {
        return reply;
      },
      function (error) {
        if (error.status === 403) return null;
        throw error;
      },
    );
    approvals.catch(function () {
      /* handled below, once health is known; not an unhandled rejection meanwhile */
    });
    return api('health')
      .then(
        function (health) {
          var withCatalog = catalogJson === null || refreshes % CATALOG_EVERY === 0;
          return Promise.all([
            health,
            api('stats'),
            api('sessions'),
            api('audit', auditQuery()),
            withCatalog ? api('catalog') : Promise.resolve(null),
            approvals,
            chartHistory(),
            // Only with the virtualServers option: otherwise there is no such API (404).
            api('servers/upstreams').catch(function (error) {
              if (error.status === 404) return null;
              throw error;
            }),
            // Only hosts with governance have pins (404 otherwise).
            api('pins').catch(function (error) {
              if (error.status === 404) return null;
              throw error;
            }),
            // Only hosts with an authorization server have sign-ins (404 otherwise).
            noGrants
              ? Promise.resolve(null)
              : Promise.all([api('oauth/grants'), api('oauth/consents'), api('oauth/clients')]).then(
                  function (replies) {
                    return { grants: replies[0].grants, consents: replies[1].consents, clients: replies[2] };
                  },
                  function (error) {
                    if (error.status !== 404) throw error;
                    noGrants = true;
                    return null;
                  },
                ),
          ]);
        },
        function (refusal) {
          return approvals.then(
            function (list) {
              if (refusal.status !== 403 || list === null) throw refusal;
              return [null, null, null, null, null, list];
            },
            function () {
              throw refusal;
            },
          );
        },
      )
      .then(function (r) {
        showAuthorized();
        root.setAttribute('data-mode', r[0] ? 'admin' : 'approver');
        if (r[0]) {
          renderHealth(r[0]);
          renderStats(r[1]);
          renderSessions(r[2]);
          renderAudit(r[3]);
          if (r[4]) renderCatalog(r[4]);
          renderHistory(r[6]);
          renderReplicaChoice(r[6]);
          renderServers(r[7]);
          renderPins(r[8]);
          loadManaged(r[7] !== null);
          renderGrants(r[9] && r[9].grants);
          if (r[9]) {
            renderConsents(r[9].consents);
            renderClients(r[9].clients);
          }
        }
        renderApprovals(r[5] && r[5].approvals, true);
        if (!r[0]) {
          setText('principal', 'signed in as ' + r[5].principal + ' (approver)');
          setText('replica', ''); // the approvals API does not say which replica answered
        }
        refreshes++;
        root.setAttribute('data-refreshes', String(refreshes));
        setText('updated', 'updated ' + new Date().toLocaleTimeString('en-GB'));
      })
      .catch(showError)
      .then(function () {
        busy = false;
      });
  }
  function loadAudit() {
    return api('audit', auditQuery()).then(renderAudit).catch(showError);
  }

  function start() {
    var select = $('f-outcome');
    OUTCOMES.forEach(function (o) {
      select.appendChild(h('option', { value: o }, [o]));
    });
    $('key-form').addEventListener('submit', function (event) {
      event.preventDefault();
      var value = $('key').value.trim();
      if (!value) return;
      try {
        sessionStorage.setItem(KEY_STORAGE, value);
      } catch {
        /* private mode: the key lives as long as the page */
      }
      $('key').value = '';
      catalogJson = null;
      refresh(true);
    });
    $('forget').addEventListener('click', function () {
      try {
        sessionStorage.removeItem(KEY_STORAGE);
      } catch {
        /* nothing stored */
      }
      $('forget').hidden = true;
      refresh(true);
    });
    $('refresh').addEventListener('click', function () {
      refresh(true);
    });
    $('audit-filter').addEventListener('submit', function (event) {
      event.preventDefault();
      auditFilter = {
        principal: $('f-principal').value.trim(),
        target: $('f-target').value.trim(),
        outcome: $('f-outcome').value,
        limit: $('f-limit').value,
      };
      loadAudit();
    });
    $('audit-clear').addEventListener('click', function () {
      $('audit-filter').reset();
      auditFilter = { principal: '', target: '', outcome: '', limit: '50' };
      loadAudit();
    });
    $('stats-rows').addEventListener('click', function (event) {
      var button = event.target.closest('button[data-target]');
      if (!button) return;
      $('f-target').value = button.getAttribute('data-target');
      auditFilter.target = button.getAttribute('data-target');
      loadAudit().then(function () {
        $('audit-panel').scrollIntoView({ behavior: 'smooth' });
      });
    });
    $('approval-rows').addEventListener('click', function (event) {
      var button = event.target.closest('button[data-decide]');
      if (!button) return;
      button.disabled = true;
      decide(button.getAttribute('data-id'), button.getAttribute('data-decide'));
    });
    $('pin-rows').addEventListener('click', function (event) {
      var button = event.target.closest('button[data-pin-decide]');
      if (!button) return;
      button.disabled = true;
      decidePin(
        button.getAttribute('data-id'),
        button.getAttribute('data-fingerprint'),
        button.getAttribute('data-pin-decide'),
      );
    });
    $('grant-rows').addEventListener('click', function (event) {
      var button = event.target.closest('button[data-revoke]');
      if (!button) return;
      button.disabled = true;
      revokeGrants(button.getAttribute('data-revoke'), button.getAttribute('data-value'));
    });
    $('consent-rows').addEventListener('click', function (event) {
      var button = event.target.closest('button[data-consent-client]');
      if (!button) return;
      button.disabled = true;
      revokeConsent(button.getAttribute('data-consent-subject'), button.getAttribute('data-consent-client'));
    });
    $('client-rows').addEventListener('click', function (event) {
      var button = event.target.closest('button[data-client-decide]');
      if (!button) return;
      button.disabled = true;
      decideClient(button.getAttribute('data-value'), button.getAttribute('data-client-decide'));
    });
    $('oauth-rotate').addEventListener('click', function () {
      $('oauth-rotate').disabled = true;
      rotateKey().then(function () {
        $('oauth-rotate').disabled = false;
      });
    });
    // A link to another request (or none) is another page: start afresh.
    window.addEventListener('hashchange', function () {
      window.location.reload();
    });
    if (focusedApproval()) {
      root.setAttribute('data-mode', 'approval');
      document.title = 'Approve a call';
      setText(
        'key-hint',
        'Sign in as an approver, with your own API key or token (not the one the calling program uses), to decide this call. It is kept in this tab only.',
      );
    }
    startManaging();
    startReplicaChoice();
    setText('refresh-every', REFRESH_MS / 1000 + ' s');
    setInterval(function () {
      if ($('auto').checked) refresh(false);
    }, REFRESH_MS);
    refresh(true);
  }
  start();
})();
