import { ExpectedMessages } from './expected-messages';

describe('ExpectedMessages', () => {
  test('when sessions connect, store and close, then only those not waiting for a commit are expected, and each drop is told after the current work', async () => {
    let told = 0;
    const expected = new ExpectedMessages(() => told++);
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
    expected.close('c');
    await Promise.resolve();
    expect(expected.count).toBe(0);
    expect(told).toBe(2);
  });
});
