import type { Socket } from 'node:net';

/**
 * Sends what a socket is given to write in one turn of the event loop together, in one write at
 * the end of the turn (`setImmediate`), instead of one write (one system call, one TCP segment,
 * one wake-up of the peer) each. For a server, a client that pipelines MAIL, RCPT and DATA (RFC
 * 2920) gets their three replies at once, as §3.2 of that RFC asks ("SHOULD elect to store
 * responses to grouped commands in an internal buffer"). For a client holding many connections to
 * one peer (the webhook dispatcher's pool), the requests it starts in one turn leave together at
 * its end, so the peer is woken once for them rather than once each: 20-25 µs less of the
 * dispatcher's CPU per delivery, the bench's webhooks 0.25 → 0.31 (docs/benchmarks.md, session
 * 32; the tracking service defers its whole answers instead, see its EndOfTurnAnswers). Writes
 * that stand alone leave in the same turn as before. A TLS socket made later on top of a wrapped
 * plain one writes past it.
 */
export function writePerTurn(socket: Socket): void {
  let corked = false;
  const flush = () => {
    corked = false;
    socket.uncork();
  };
  const write = socket.write;
  socket.write = function (this: Socket, ...args: Parameters<Socket['write']>) {
    if (!corked) {
      corked = true;
      socket.cork();
      setImmediate(flush);
    }
    return write.apply(this, args);
  } as Socket['write'];
}
