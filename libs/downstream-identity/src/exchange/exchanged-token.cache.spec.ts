import { ExchangedTokenCache } from './exchanged-token.cache';

describe('ExchangedTokenCache', () => {
  let now = 0;
  const cache = () => new ExchangedTokenCache(() => now);
  const token = (accessToken: string, expiresIn = 300) => ({ accessToken, expiresIn, actor: 'desk-host' });

  beforeEach(() => (now = 1_000_000));

  it('keeps a token until shortly before it expires, then exchanges again', async () => {
    const tokens = cache();
    const exchange = jest.fn().mockResolvedValueOnce(token('t1')).mockResolvedValueOnce(token('t2'));
    expect((await tokens.get('alice\nhttps://wiki', exchange)).accessToken).toBe('t1');
    now += 269_000;
    expect((await tokens.get('alice\nhttps://wiki', exchange)).accessToken).toBe('t1');
    now += 2_000; // 30 s before expiry
    expect((await tokens.get('alice\nhttps://wiki', exchange)).accessToken).toBe('t2');
    expect(exchange).toHaveBeenCalledTimes(2);
  });

  it('keeps a short-lived token for half its life', async () => {
    const tokens = cache();
    const exchange = jest.fn().mockResolvedValue(token('t', 20));
    await tokens.get('k', exchange);
    now += 9_000;
    await tokens.get('k', exchange);
    now += 2_000;
    await tokens.get('k', exchange);
    expect(exchange).toHaveBeenCalledTimes(2);
  });

  it('keeps callers and audiences apart, and shares one exchange between concurrent calls', async () => {
    const tokens = cache();
    let calls = 0;
    const exchange = jest.fn(async () => token(`t${++calls}`));
    const [a, b, c] = await Promise.all([
      tokens.get('alice\nx', exchange),
      tokens.get('alice\nx', exchange),
      tokens.get('bob\nx', exchange),
    ]);
    expect(a).toBe(b);
    expect(c).not.toBe(a);
    expect(exchange).toHaveBeenCalledTimes(2);
  });

  it('exchanges again after a refusal, and keeps no failed exchange', async () => {
    const tokens = cache();
    const failing = jest.fn().mockRejectedValueOnce(new Error('refused')).mockResolvedValue(token('t'));
    await expect(tokens.get('k', failing)).rejects.toThrow('refused');
    await tokens.get('k', failing);
    tokens.forget('k');
    await tokens.get('k', failing);
    expect(failing).toHaveBeenCalledTimes(3);
  });
});
