import { answerProblem } from './input-responses';

describe('answerProblem', () => {
  it('accepts the results the schema describes, with fields it does not name', () => {
    expect(
      answerProblem('elicitation/create', { action: 'accept', content: { name: 'A', n: 1, ok: true, tags: ['x'] } }),
    ).toBeUndefined();
    expect(answerProblem('elicitation/create', { action: 'decline', _meta: {} })).toBeUndefined();
    const sampled = { role: 'assistant', content: { type: 'text', text: 'Paris' }, model: 'm', stopReason: 'endTurn' };
    expect(answerProblem('sampling/createMessage', sampled)).toBeUndefined();
    expect(
      answerProblem('sampling/createMessage', { ...sampled, content: [{ type: 'text', text: 'a' }] }),
    ).toBeUndefined();
    expect(
      answerProblem('roots/list', { roots: [{ uri: 'file:///a', name: 'a' }, { uri: 'file:///b' }] }),
    ).toBeUndefined();
  });

  it('names what is wrong', () => {
    expect(answerProblem('roots/list', null)).toBe("must be an object (the client's result of roots/list)");
    expect(answerProblem('elicitation/create', { action: 'yes' })).toBe(
      '"action" must be "accept", "decline" or "cancel"',
    );
    expect(answerProblem('elicitation/create', { action: 'accept', content: 'Alice' })).toBe(
      '"content" must be an object',
    );
    expect(answerProblem('elicitation/create', { action: 'accept', content: { who: { name: 'A' } } })).toBe(
      '"content.who" must be a string, a number, a boolean or a list of strings',
    );
    expect(answerProblem('sampling/createMessage', { role: 'model', content: { type: 'text' }, model: 'm' })).toBe(
      '"role" must be "assistant" or "user"',
    );
    expect(answerProblem('sampling/createMessage', { role: 'assistant', content: 'Paris', model: 'm' })).toBe(
      '"content" must be a content block (an object with a "type") or a list of them',
    );
    expect(answerProblem('sampling/createMessage', { role: 'assistant', content: { type: 'text' } })).toBe(
      '"model" must be a string',
    );
    expect(answerProblem('roots/list', { roots: 'file:///a' })).toBe('"roots" must be a list');
    expect(answerProblem('roots/list', { roots: [{ uri: 'file:///a' }, { name: 'b' }] })).toBe(
      '"roots[1]" must be an object with a string "uri" (and an optional string "name")',
    );
  });
});
