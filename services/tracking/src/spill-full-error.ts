/** The engagement spill holds its bound of events already: a batch pushed then stays where it was (in memory). */
export class SpillFullError extends Error {
  override readonly name = 'SpillFullError';

  constructor(readonly bound: number) {
    super(`The engagement spill holds ${bound} events, its bound.`);
  }
}
