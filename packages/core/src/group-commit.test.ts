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
