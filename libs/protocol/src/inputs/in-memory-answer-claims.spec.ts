import { InMemoryAnswerClaims } from './in-memory-answer-claims';

const IN_A_MINUTE = () => Date.now() + 60_000;

describe('InMemoryAnswerClaims', () => {
  it('claims an answer once, and none of a state issued under another generation (another process)', async () => {
    const claims = new InMemoryAnswerClaims();
    const { generation } = claims;
    expect(await claims.claim('s1:ok', IN_A_MINUTE(), generation)).toBe(true);
    expect(await claims.claim('s1:ok', IN_A_MINUTE(), generation)).toBe(false);
    // The same secret in a restarted process: this one's claims never saw s2's use.
    const restarted = new InMemoryAnswerClaims();
    expect(restarted.generation).not.toBe(generation);
    expect(await restarted.claim('s2:ok', IN_A_MINUTE(), generation)).toBe(false);
    // A state sealed before generations were recorded counts as another generation.
    expect(await restarted.claim('s3:ok', IN_A_MINUTE(), undefined)).toBe(false);
  });
});
