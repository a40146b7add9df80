import { Lru } from './lru';

describe('Lru', () => {
  test('when more keys are set than it holds, then the least recently used are forgotten and those read lately kept', () => {
    const lru = new Lru<string, number>(4);
    for (const [i, key] of ['a', 'b', 'c', 'd'].entries()) lru.set(key, i);
    expect(lru.get('a')).toBe(0); // read: a is recent again
    lru.set('e', 4);
    lru.set('f', 5);
    expect(lru.get('a')).toBe(0);
    expect(lru.get('b')).toBeUndefined();
    expect(lru.get('c')).toBeUndefined();
    expect(lru.get('f')).toBe(5);
    lru.set('f', 6);
    expect(lru.get('f')).toBe(6);
  });

  test('when keys keep coming, then it never holds more than its size', () => {
    const lru = new Lru<number, number>(10);
    for (let i = 0; i < 1_000; i++) lru.set(i, i);
    const held = Array.from({ length: 1_000 }, (_, i) => lru.get(i)).filter((v) => v !== undefined);
    expect(held.length).toBeLessThanOrEqual(10);
    expect(held).toContain(999);
  });
});
