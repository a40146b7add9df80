import { createLimiter, GroupCommit } from './group-commit';

describe('GroupCommit', () => {
  test('when items arrive during a write, then they are written together by the next write', async () => {
    const writes: number[][] = [];
    const commit = new GroupCommit<number>(async (items) => {
      writes.push(items);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }, 100);
    await Promise.all([1, 2, 3, 4, 5].map((n) => commit.submit([n])));
    expect(writes).toEqual([[1], [2, 3, 4, 5]]);
  });

  test('when a combined write fails, then each caller is retried alone and only the bad one fails', async () => {
    const commit = new GroupCommit<number>(async (items) => {
      await new Promise((resolve) => setTimeout(resolve, 5));
      if (items.includes(13)) throw new Error('bad row');
    }, 100);
    const results = await Promise.allSettled([commit.submit([1]), commit.submit([2]), commit.submit([13]), commit.submit([4])]);
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'fulfilled', 'rejected', 'fulfilled']);
  });

  test('when batches would exceed the cap, then they are split', async () => {
    const sizes: number[] = [];
    const commit = new GroupCommit<number>(async (items) => {
      sizes.push(items.length);
      await new Promise((resolve) => setTimeout(resolve, 5));
    }, 4);
    await Promise.all(Array.from({ length: 9 }, (_, i) => commit.submit([i, i])));
    expect(Math.max(...sizes)).toBeLessThanOrEqual(4);
    expect(sizes.reduce((a, b) => a + b)).toBe(18);
  });
});

describe('GroupCommit with a hold', () => {
  const slowWrite = (writes: number[][]) => async (items: number[]) => {
    writes.push(items);
    await new Promise((resolve) => setTimeout(resolve, 20));
  };
  // A first write, so that holds may last as long as a write takes (20 ms); then the writer is idle.
  const firstWrite = async (commit: GroupCommit<number>) => {
    await commit.submit([0]);
    await new Promise((resolve) => setImmediate(resolve));
  };

  test('when more items are expected, then an idle writer waits for them and writes them together', async () => {
    const writes: number[][] = [];
    let expected = 3;
    const commit = new GroupCommit<number>(slowWrite(writes), 100, 1, { expected: () => expected > 0, maxMs: 1_000 });
    await firstWrite(commit);
    const first = commit.submit([1]);
    await new Promise((resolve) => setTimeout(resolve, 2));
    expect(writes).toEqual([[0]]);
    const rest = [2, 3].map((n) => {
      expected--;
      return commit.submit([n]);
    });
    expected--;
    commit.wake();
    await Promise.all([first, ...rest]);
    expect(writes).toEqual([[0], [1, 2, 3]]);
  });

  test('when a write ends while items wait and more are expected, then the writer waits for them too', async () => {
    const writes: number[][] = [];
    let expected = 0;
    const commit = new GroupCommit<number>(slowWrite(writes), 100, 1, { expected: () => expected > 0, maxMs: 1_000 });
    await firstWrite(commit);
    // 1 is written; 2 arrives during that write; 3 is expected once 1 is answered.
    const one = commit.submit([1]).then(() => {
      expected = 1;
    });
    const two = commit.submit([2]);
    await one;
    await new Promise((resolve) => setTimeout(resolve, 5));
    expect(writes).toEqual([[0], [1]]);
    expected = 0;
    await Promise.all([two, commit.submit([3])]);
    expect(writes).toEqual([[0], [1], [2, 3]]);
  });

  test('when the expected items do not come, then the writer waits no longer than the last write took', async () => {
    const writes: number[][] = [];
    const commit = new GroupCommit<number>(slowWrite(writes), 100, 1, { expected: () => true, maxMs: 60_000 });
    await firstWrite(commit);
    const started = performance.now();
    await commit.submit([1]);
    // The hold (about 20 ms, the last write) plus the write (20 ms), far from maxMs.
    expect(performance.now() - started).toBeGreaterThanOrEqual(35);
    expect(performance.now() - started).toBeLessThan(1_000);
    expect(writes).toEqual([[0], [1]]);
  });

  test('when the hold is not cut to the last write, then the writer waits up to maxMs for what is expected', async () => {
    const writes: number[][] = [];
    let expected = 1;
    const commit = new GroupCommit<number>(slowWrite(writes), 100, 1, { expected: () => expected > 0, maxMs: 1_000, cutToLastWrite: false });
    await firstWrite(commit);
    const first = commit.submit([1]);
    // Longer than the last write (20 ms): a cut hold would have written 1 alone by now.
    await new Promise((resolve) => setTimeout(resolve, 60));
    expect(writes).toEqual([[0]]);
    expected = 0;
    const second = commit.submit([2]);
    await Promise.all([first, second]);
    expect(writes).toEqual([[0], [1, 2]]);
  });

  test('when a write is full, then it goes at once whatever is expected', async () => {
    const writes: number[][] = [];
    let writeMs = 200;
    let lastStart = 0;
    const commit = new GroupCommit<number>(
      async (items) => {
        writes.push(items);
        lastStart = performance.now();
        await new Promise((resolve) => setTimeout(resolve, writeMs));
      },
      3,
      1,
      { expected: () => true, maxMs: 60_000 },
    );
    await firstWrite(commit);
    writeMs = 1;
    const started = performance.now();
    await Promise.all([commit.submit([1]), commit.submit([2, 3])]);
    expect(writes).toEqual([[0], [1, 2, 3]]);
    // Not after a hold of 200 ms (the last write's duration).
    expect(lastStart - started).toBeLessThan(100);
  });
});

describe('createLimiter', () => {
  test('when many tasks run, then at most the limit run at once', async () => {
    const run = createLimiter(3);
    let active = 0;
    let peak = 0;
    await Promise.all(
      Array.from({ length: 10 }, () =>
        run(async () => {
          peak = Math.max(peak, ++active);
          await new Promise((resolve) => setTimeout(resolve, 5));
          active--;
        }),
      ),
    );
    expect(peak).toBe(3);
  });
});
