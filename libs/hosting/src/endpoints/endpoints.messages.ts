/** What each surface of an endpoint is called in start-up errors, and how to resolve a clash on it. */
export const EndpointSurfaces = {
  name: {
    option: 'name',
    what: 'server name',
    fix: "give each McpModule.forRoot() a name of its own (endpoints are told apart by it: McpEndpoints.get('billing'), logs)",
  },
  path: {
    option: 'path',
    what: 'Streamable HTTP endpoint',
    fix: "give each endpoint a path of its own, e.g. path: '/mcp/support' and path: '/mcp/billing'",
  },
  admin: {
    option: 'admin',
    what: 'admin dashboard',
    fix: "keep the dashboard on one endpoint (admin: false on the others), or give each its own: admin: { path: '/admin/billing' }",
  },
  metrics: {
    option: 'metrics',
    what: 'Prometheus metrics',
    fix: "keep metrics on one endpoint (metrics: false on the others), or give each its own: metrics: { path: '/metrics/billing' }",
  },
  metricsPort: {
    option: 'metrics.port',
    what: 'metrics listener',
    fix: 'give each endpoint’s metrics a port of its own, or serve them on the main server (no metrics.port)',
  },
  health: {
    option: 'health',
    what: 'health probes (/health/live, /health/ready)',
    fix: 'keep the probes on one endpoint: set health: false in the McpModule.forRoot() of the others',
  },
  stdio: {
    option: 'stdio',
    what: 'stdio transport',
    fix: 'one process has one stdin/stdout: set stdio: true on one endpoint only',
  },
} as const;

export type EndpointSurface = keyof typeof EndpointSurfaces;

export const EndpointMessages = {
  clash: (claimed: string, surface: EndpointSurface, owner: string, ownerSurface: EndpointSurface) =>
    `${claimed} is already taken by the ${EndpointSurfaces[ownerSurface].what} of McpModule "${owner}"` +
    (surface === ownerSurface ? '' : ` (here: the ${EndpointSurfaces[surface].what})`),
  unknown: (name: string, known: readonly string[]) =>
    `No MCP endpoint is named "${name}"; the application has ${known.length === 0 ? 'none' : known.map((n) => `"${n}"`).join(', ')}. ` +
    'Use the `name` given to McpModule.forRoot().',
};
