import { type AttemptReport, NextHopGate, NextHopResting } from './next-hop-gate';

// A clock the tests move; attempts are promises the tests settle.
function setup(perHop = 2, restMs = 60_000) {
  let now = 1_000_000;
  const gate = new NextHopGate({ perHop, restMs, now: () => now });
  const started: string[] = [];
  const pending: Array<(connected: boolean) => void> = [];
  const attempt = (name: string) =>
    gate.run('mx [192.0.2.1]:25', () => {
      started.push(name);
      return new Promise<{ value: string; report: AttemptReport }>((resolve) =>
        pending.push((connected) => resolve({ value: name, report: connected ? { connected: true } : { connected: false, cause: 'Greeting never received' } })),
      );
    });
  const turn = () => new Promise((resolve) => setImmediate(resolve));
  return { gate, started, pending, attempt, turn, advance: (ms: number) => (now += ms) };
}

describe('NextHopGate', () => {
  test('when more attempts come than the hop has room for, then the rest wait their turn in order', async () => {
    const { started, pending, attempt, turn } = setup(2);
    const results = ['a', 'b', 'c', 'd'].map(attempt);
    await turn();
    expect(started).toEqual(['a', 'b']);
    pending.shift()?.(true);
    await turn();
    expect(started).toEqual(['a', 'b', 'c']);
    for (const settle of pending.splice(0)) settle(true);
    await turn();
    for (const settle of pending.splice(0)) settle(true);
    expect(await Promise.all(results)).toEqual(['a', 'b', 'c', 'd']);
  });

  test('when an attempt fails to connect, then those waiting and those coming during the rest fail at once without an attempt; after it, the hop is tried again', async () => {
    const { gate, started, pending, attempt, turn, advance } = setup(2);
    const results = ['a', 'b', 'c', 'd'].map(attempt);
    await turn();
    pending.shift()?.(false);
    expect(await results[0]).toBe('a');
    const waiting = await Promise.all([results[2], results[3]]);
    for (const result of waiting) {
      expect(result).toBeInstanceOf(NextHopResting);
      expect((result as NextHopResting).message).toMatch(/^not tried: the next hop failed to connect moments ago \(Greeting never received\); it is tried again from /);
    }
    expect(await attempt('e')).toBeInstanceOf(NextHopResting);
    expect(started).toEqual(['a', 'b']);
    expect(gate.restingCount()).toBe(1);

    pending.shift()?.(false);
    await results[1];
    advance(60_001);
    const again = attempt('f');
    await turn();
    expect(started).toEqual(['a', 'b', 'f']);
    pending.shift()?.(true);
    expect(await again).toBe('f');
    expect(gate.restingCount()).toBe(0);
  });

  test('when a connection succeeds while the hop rests (an attempt admitted before the rest), then the rest ends', async () => {
    const { gate, pending, attempt, turn } = setup(2);
    const first = attempt('a');
    const second = attempt('b');
    await turn();
    pending.shift()?.(false);
    await first;
    expect(gate.restingCount()).toBe(1);
    pending.shift()?.(true);
    await second;
    expect(gate.restingCount()).toBe(0);
    const third = attempt('c');
    await turn();
    pending.shift()?.(true);
    expect(await third).toBe('c');
  });
});
