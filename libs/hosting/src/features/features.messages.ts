/** Start-up diagnostics of features the options turn on but the module was defined without. */
export const FeatureMessages = {
  leftOut: (feature: string) => ({
    problem: `the options need the ${feature} feature, but McpModule was defined without it (mount: { ${feature}: false })`,
    fix: `leave out mount.${feature} (or set it to true), or leave the ${feature} option out of what McpModule.forRootAsync's factory returns`,
  }),
} as const;
