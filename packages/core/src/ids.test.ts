import { isId, newId } from './ids';

describe('ids', () => {
  test('when ids are made, then they carry the prefix and sort by creation', () => {
    const ids = Array.from({ length: 50 }, () => newId('email'));
    expect(ids.every((id) => /^em_[0-9A-HJKMNP-TV-Z]{26}$/.test(id))).toBe(true);
    expect([...ids].sort()).toEqual(ids);
    expect(new Set(ids).size).toBe(50);
    expect(isId('email', ids[0])).toBe(true);
    expect(isId('project', ids[0])).toBe(false);
    expect(isId('email', 'em_../../etc')).toBe(false);
  });
});
