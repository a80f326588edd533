import { CircuitBreaker } from './circuit-breaker';

describe('CircuitBreaker', () => {
  let now: number;
  const breaker = () => new CircuitBreaker({ failureThreshold: 3, openMs: 1_000 }, () => now);

  beforeEach(() => (now = 0));

  it('stays closed below the threshold, and a success resets the count', () => {
    const circuit = breaker();
    circuit.failed();
    circuit.failed();
    circuit.succeeded();
    circuit.failed();
    circuit.failed();
    expect(circuit.state).toBe('closed');
    expect(circuit.allow()).toBe(true);
    expect(circuit.consecutiveFailures).toBe(2);
  });

  it('opens at the threshold and refuses calls, saying when a probe may go', () => {
    const circuit = breaker();
    for (let i = 0; i < 3; i++) circuit.failed();
    expect(circuit.state).toBe('open');
    expect(circuit.allow()).toBe(false);
    now = 400;
    expect(circuit.retryInMs()).toBe(600);
  });

  it('lets exactly one probe through once openMs has passed, and closes when it succeeds', () => {
    const circuit = breaker();
    for (let i = 0; i < 3; i++) circuit.failed();
    now = 1_000;
    expect(circuit.state).toBe('half-open');
    expect(circuit.allow()).toBe(true);
    expect(circuit.allow()).toBe(false);
    circuit.succeeded();
    expect(circuit.state).toBe('closed');
    expect(circuit.allow()).toBe(true);
  });

  it('opens again for a full openMs when the probe fails', () => {
    const circuit = breaker();
    for (let i = 0; i < 3; i++) circuit.failed();
    now = 1_500;
    expect(circuit.allow()).toBe(true);
    circuit.failed();
    expect(circuit.state).toBe('open');
    now = 2_400;
    expect(circuit.allow()).toBe(false);
    now = 2_500;
    expect(circuit.allow()).toBe(true);
  });
});
