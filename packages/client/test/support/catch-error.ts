/** What a promise rejected with; fails the test if it resolved. */
// biome-ignore lint/suspicious/noExplicitAny: tests read whatever fields the thrown value has.
export async function rejectionOf(promise: PromiseLike<unknown>): Promise<any> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error('expected the call to fail, but it succeeded');
}
