import { UriTemplate } from './uri-template';

describe('UriTemplate', () => {
  it('matches simple expressions within one segment, decoding them', () => {
    const template = UriTemplate.parse('kb://articles/{slug}');
    expect(template.match('kb://articles/vpn%20setup')).toEqual({ slug: 'vpn setup' });
    expect(template.match('kb://articles/a/b')).toBeUndefined();
    expect(template.match('kb://articles/')).toBeUndefined();
    expect(template.match('kb://other/x')).toBeUndefined();
  });

  it('matches several variables and literal tails', () => {
    expect(UriTemplate.parse('test://template/{id}/data').match('test://template/123/data')).toEqual({ id: '123' });
    expect(UriTemplate.parse('db://{schema}.{table}').match('db://public.users')).toEqual({
      schema: 'public',
      table: 'users',
    });
  });

  it('lets reserved expressions span slashes and fragments match after #', () => {
    expect(UriTemplate.parse('files://{+path}').match('files://docs/a/b.md')).toEqual({ path: 'docs/a/b.md' });
    expect(UriTemplate.parse('doc://guide{#section}').match('doc://guide#install')).toEqual({ section: 'install' });
  });

  it.each([
    ['kb://articles/{?page}', 'level 3 or 4'],
    ['kb://articles/{a,b}', 'not a single variable name'],
    ['kb://{x}/{x}', 'appears twice'],
    ['kb://articles/{slug', 'unbalanced braces'],
    ['articles/{slug}', 'does not start with a URI scheme'],
  ])('rejects %s (%s)', (template, message) => {
    expect(() => UriTemplate.parse(template)).toThrow(message);
  });

  it('gives templates that match the same URIs the same skeleton', () => {
    expect(UriTemplate.parse('kb://a/{x}').skeleton).toBe(UriTemplate.parse('kb://a/{y}').skeleton);
    expect(UriTemplate.parse('kb://a/{x}').skeleton).not.toBe(UriTemplate.parse('kb://a/{+x}').skeleton);
  });
});
