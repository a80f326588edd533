/** Start-up diagnostics of MCP Apps views and the tools that name them: what is wrong and how to fix it. */
export const AppsMessages = {
  badUri: (uri: unknown) => ({
    problem: `view URI ${JSON.stringify(uri)} is not a ui:// URI`,
    fix: "use ui://<server>/<view>, e.g. @McpView({ uri: 'ui://desk/ticket-card', ... })",
  }),
  badList: (option: string, value: unknown) => ({
    problem: `${option} ${JSON.stringify(value)} is not a list of strings`,
    fix: `give an array, e.g. ${option}: ['https://cdn.example.com'], or leave it out`,
  }),
  badOrigin: (option: string, origin: string) => ({
    problem: `${option} has "${origin}", which is not an origin`,
    fix: 'give scheme and host only, e.g. https://api.example.com or https://*.example.com (http:// and ws:// only for localhost)',
  }),
  unknownCsp: (key: string) => ({
    problem: `csp.${key} is not a directive of the extension`,
    fix: 'use connectDomains, resourceDomains, frameDomains or baseUriDomains',
  }),
  badPermission: (value: unknown) => ({
    problem: `permission ${JSON.stringify(value)} is not one the extension defines`,
    fix: "use 'camera', 'microphone', 'geolocation' or 'clipboardWrite'",
  }),
  badDomain: (value: unknown) => ({
    problem: `domain ${JSON.stringify(value)} is not a host name`,
    fix: "give the host name the client documents for dedicated origins (e.g. 'a904794854a047f6.claudemcpcontent.com'), without a scheme",
  }),
  badFlag: (option: string, value: unknown) => ({
    problem: `${option} ${JSON.stringify(value)} is not a boolean`,
    fix: `set ${option}: true or false, or leave it out`,
  }),
  badScript: (index: number) => ({
    problem: `scripts[${index}] is neither { source } nor { file }`,
    fix: "give the script's text as { source: '...' } (or a function making it), or a file as { file: join(__dirname, 'view.js') }",
  }),
  unreadableScript: (index: number, file: string, reason: string) => ({
    problem: `scripts[${index}]: cannot read ${file} (${reason})`,
    fix: 'check the path (resolve it from __dirname) and that the build copies the file next to the compiled code',
  }),
  scriptEndTag: (index: number) => ({
    problem: `scripts[${index}] contains "</script", which would end the inline script early`,
    fix: 'write it as "<\\/script" in strings, or build the bundle with an HTML-safe output option',
  }),
  notAView: (uri: string, views: readonly string[]) => ({
    problem: `ui.resource "${uri}" names no view of this host`,
    fix:
      `declare it with @McpView({ uri: '${uri}', ... }) on a provider method, or correct the URI` +
      (views.length > 0 ? ` (views: ${views.join(', ')})` : ''),
  }),
  notHtml: (where: string) =>
    `${where} must return the view's HTML as a string (read a file, render a template): it returned something else`,
} as const;
