import { remember } from './remember';

describe('remember', () => {
  test('when a key is cached, then its value is made once and returned again', () => {
    const cache = new Map<string, number>();
    let made = 0;
    const make = () => ++made;
    expect([remember(cache, 'a', 10, make), remember(cache, 'a', 10, make)]).toEqual([1, 1]);
    expect(made).toBe(1);
  });

  test('when the cache is full, then it starts over with the new entry', () => {
    const cache = new Map<string, string>([
      ['a', 'A'],
      ['b', 'B'],
    ]);
    expect(remember(cache, 'c', 2, () => 'C')).toBe('C');
    expect([...cache]).toEqual([['c', 'C']]);
  });
});
