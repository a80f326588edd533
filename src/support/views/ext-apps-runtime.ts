import { readFileSync } from 'node:fs';

/** The official view side of MCP Apps (`App` of `@modelcontextprotocol/ext-apps`), bundled with its dependencies. */
const BUNDLE = '@modelcontextprotocol/ext-apps/app-with-deps';
/** The bundle's one export statement, at its end. */
const EXPORTS = /export\s*\{([^}]*)\};?\s*$/;

/**
 * The ext-apps bundle as a script a view can run inline: an inline module cannot be imported, so
 * its closing `export { a as App, … }` becomes `globalThis.ExtApps = { App: a, … }`, which the
 * desk's view scripts read. Read at start-up (`@McpView` calls it once, when it compiles the view).
 * @throws Error when the bundle is missing or no longer ends with its export statement
 */
export function extAppsRuntime(): string {
  const source = readFileSync(require.resolve(BUNDLE), 'utf8');
  const exports = EXPORTS.exec(source);
  if (!exports) throw new Error(`${BUNDLE} does not end with an export statement; the desk's views cannot load it`);
  const names = exports[1]
    .split(',')
    .map((entry) => entry.trim().split(/\s+as\s+/))
    .filter(([local]) => local)
    .map(([local, exported]) => `${JSON.stringify(exported ?? local)}:${local}`);
  return `${source.slice(0, exports.index)}globalThis.ExtApps={${names.join(',')}};`;
}
