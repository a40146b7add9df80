import { idFloor, isId, newId, newIdAt } from './ids';

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

  test('when an id is made at a given time, then it sorts between the floors of that time and the next millisecond', () => {
    const time = Date.UTC(2026, 0, 1);
    const id = newIdAt('receivedEmail', time);
    expect(isId('receivedEmail', id)).toBe(true);
    expect(idFloor('receivedEmail', time) <= id).toBe(true);
    expect(id < idFloor('receivedEmail', time + 1)).toBe(true);
    expect(newId('receivedEmail') > idFloor('receivedEmail', Date.now() - 1000)).toBe(true);
  });
});
