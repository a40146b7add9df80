import { ExpectedMessages } from './expected-messages';

describe('ExpectedMessages', () => {
  test('when sessions connect, store and close, then only those not waiting for a commit are expected, and each drop is told after the current work', async () => {
    let told = 0;
    // A clock that stands still: this test is about storing and closing, not about quiet time.
    const expected = new ExpectedMessages(() => told++, 5, () => 0);
    expected.open('a');
    expected.open('b');
    expect(expected.count).toBe(2);

    expected.storing('a');
    expect(expected.count).toBe(1);
    // Told after the caller's synchronous work (submitting the message), not during it.
    expect(told).toBe(0);
    await Promise.resolve();
    expect(told).toBe(1);

    expected.answered('a');
    expect(expected.count).toBe(2);
    expected.close('b');
    expected.close('a');
    await Promise.resolve();
    expect(expected.count).toBe(0);
    // Two drops in one turn: told once.
    expect(told).toBe(2);
    // A session never admitted (refused at connect) changes nothing.
    expected.storing('c');
    expected.active('c');
    expected.close('c');
    await Promise.resolve();
    expect(expected.count).toBe(0);
    expect(told).toBe(2);
  });

  test('when a session takes no step for longer than the active time, then it is no longer expected until its next step', () => {
    let now = 0;
    const expected = new ExpectedMessages(() => undefined, 5, () => now);
    expected.open('idle');
    expected.open('busy');
    now = 4;
    expected.active('busy');
    expect(expected.count).toBe(2);
    // 'idle' connected 6 ms ago and said nothing since; 'busy' said MAIL FROM 2 ms ago.
    now = 6;
    expect(expected.count).toBe(1);
    now = 10;
    expect(expected.count).toBe(0);
    // RCPT TO, then its message is answered: expected again each time.
    expected.active('idle');
    expect(expected.count).toBe(1);
    expected.storing('idle');
    expect(expected.count).toBe(0);
    // A step while its message is in the store changes nothing (it sends no other until answered).
    expected.active('idle');
    expect(expected.count).toBe(0);
    now = 30;
    expected.answered('idle');
    expect(expected.count).toBe(1);
  });
});
