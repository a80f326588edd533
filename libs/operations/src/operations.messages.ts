/** Start-up diagnostics of operations parts the options turn on but the module left out. */
export const OperationsMessages = {
  partLeftOut: (part: 'admin' | 'metrics') => ({
    problem:
      part === 'admin'
        ? 'the admin dashboard is on (the `admin` option), but McpModule was defined without it (mount: { admin: false })'
        : 'metrics are on (the `metrics` option), but McpModule was defined without their endpoint (mount: { metrics: false })',
    fix: `set ${part}: false in the options McpModule.forRootAsync's factory returns, or leave out mount.${part} (or set it to true)`,
  }),
} as const;
