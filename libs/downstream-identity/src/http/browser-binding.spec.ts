import { BrowserBinding } from './browser-binding';

/** The request headers of a browser that keeps the cookie a `Set-Cookie` header gave it. */
const browserWith = (...setCookies: string[]) => ({
  cookie: setCookies.map((header) => header.slice(0, header.indexOf(';'))).join('; '),
});

describe('BrowserBinding', () => {
  it('over https: a __Host- cookie (Secure, Path=/, no Domain), HttpOnly, SameSite=Lax, 10 minutes at most', () => {
    const { bound, setCookie } = new BrowserBinding('https://mcp.desk.example', '/connect', 3_600_000).issue();
    expect(bound.cookie).toMatch(/^__Host-mcp-connect-[\w-]{16}$/);
    expect(setCookie).toMatch(
      /^__Host-mcp-connect-[\w-]{16}=[\w-]{43}; Path=\/; Max-Age=600; HttpOnly; SameSite=Lax; Secure$/,
    );
    expect(setCookie).not.toContain('Domain');
  });

  it("over plain http (a loopback host): scoped to the connect pages, as short as the flow's own life", () => {
    const { setCookie } = new BrowserBinding('http://127.0.0.1:3000', '/connect', 120_000).issue();
    expect(setCookie).toMatch(/^mcp-connect-[\w-]{16}=[\w-]{43}; Path=\/connect; Max-Age=120; HttpOnly; SameSite=Lax$/);
  });

  it('holds for the browser it was issued to only: not without the cookie, not with another value or another flow', () => {
    const binding = new BrowserBinding('https://mcp.desk.example', '/connect', 600_000);
    const mine = binding.issue();
    const other = binding.issue();
    expect(binding.holds(browserWith(mine.setCookie), mine.bound)).toBe(true);
    expect(binding.holds(browserWith(other.setCookie, mine.setCookie), mine.bound)).toBe(true);
    expect(binding.holds({}, mine.bound)).toBe(false);
    expect(binding.holds(browserWith(other.setCookie), mine.bound)).toBe(false);
    expect(binding.holds({ cookie: `${mine.bound.cookie}=${'A'.repeat(43)}` }, mine.bound)).toBe(false);
    // What a browser presents of its other flows (to name who signed in with it).
    expect(binding.presented(browserWith(other.setCookie)).map(([name]) => name)).toEqual([other.bound.cookie]);
  });

  it('spends a cookie: same name and path, empty, Max-Age=0', () => {
    const binding = new BrowserBinding('http://127.0.0.1:3000', '/connect', 600_000);
    const { bound } = binding.issue();
    expect(binding.spend(bound.cookie)).toBe(`${bound.cookie}=; Path=/connect; Max-Age=0; HttpOnly; SameSite=Lax`);
  });
});
