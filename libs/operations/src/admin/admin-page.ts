/** Escapes text for HTML content and quoted attribute values. */
export function escapeHtml(value: string): string {
  return value.replace(
    /[&<>"']/g,
    (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!,
  );
}

/** What the page template's `{{name}}` placeholders stand for. */
export interface AdminPageValues {
  /** The admin path (`admin.path`): where the page, its script, style sheet and API are. */
  base: string;
  /** Shown as the page's title and heading. */
  hostName: string;
  /** How often the page refreshes itself, in milliseconds. */
  refreshMs: number;
}

const PLACEHOLDER = /\{\{\s*([A-Za-z]+)\s*\}\}/g;

/**
 * The dashboard page from its template (`assets/admin.html`): structure only, no data (the script
 * fetches it with the admin key), so anyone the Host/Origin policy admits may load it. Every
 * `{{name}}` becomes its value, HTML-escaped; a placeholder without a value is an error, since
 * it means the template and this code are out of step.
 *
 * @example
 * const page = renderAdminPage(AdminAssets.load().pageTemplate, { base: '/admin', hostName: 'Desk', refreshMs: 5_000 });
 */
export function renderAdminPage(template: string, values: AdminPageValues): string {
  const text: Record<string, string> = {
    base: values.base,
    hostName: values.hostName,
    refreshMs: String(values.refreshMs),
  };
  return template.replace(PLACEHOLDER, (whole, name: string) => {
    if (!Object.hasOwn(text, name)) {
      throw new Error(
        `The admin page template has the placeholder ${whole}, which has no value; use one of: ${Object.keys(text).join(', ')}.`,
      );
    }
    return escapeHtml(text[name]);
  });
}
