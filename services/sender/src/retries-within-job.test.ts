import { RetriesWithinJob } from './retries-within-job';

describe('RetriesWithinJob', () => {
  test('when nothing else is in flight, then next() answers null at once, deferred items or not', async () => {
    const later = new RetriesWithinJob<string>();
    expect(await later.next()).toBeNull();
    later.defer('a', new Date(Date.now() + 60_000));
    expect(await later.next()).toBeNull();
  });

  test('when an item falls due while another attempt is in flight, then next() gives it, earliest first', async () => {
    const later = new RetriesWithinJob<string>();
    later.started();
    later.defer('late', new Date(Date.now() + 80));
    later.defer('soon', new Date(Date.now() + 20));
    expect(await later.next()).toBe('soon');
    expect(await later.next()).toBe('late');
    later.finished();
  });

  test('when the last attempt in flight ends while next() waits, then it answers null without waiting for the item', async () => {
    const later = new RetriesWithinJob<string>();
    later.started();
    later.defer('a', new Date(Date.now() + 60_000));
    const next = later.next();
    setTimeout(() => later.finished(), 20);
    const started = Date.now();
    expect(await next).toBeNull();
    expect(Date.now() - started).toBeLessThan(10_000);
  });
});
