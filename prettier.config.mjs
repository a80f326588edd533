// Prettier decides the layout of the code and config files; ESLint (eslint.config.mjs) checks the code
// and leaves layout to prettier (eslint-config-prettier turns its layout rules off). Markdown is left
// as written: see .prettierignore.
/** @type {import('prettier').Config} */
export default {
  // The house style keeps lines under 120 characters; 80 would rewrap most of the code base.
  printWidth: 120,
  // Nest's own code base and ours quote with single quotes and end multi-line lists with a comma.
  singleQuote: true,
  trailingComma: 'all',
  overrides: [
    // YAML (docker/compose.yaml, prometheus.yml) keeps the double quotes Docker's and Prometheus's docs use.
    { files: ['*.yml', '*.yaml'], options: { singleQuote: false } },
  ],
};
