import type { Socket } from 'node:net';

/**
 * Sends the replies a connection writes in one turn of the event loop together, in one write
 * at the end of the turn, instead of one write (one system call, one TCP segment) each. A
 * client that pipelines MAIL, RCPT and DATA (RFC 2920) gets their three replies at once, as
 * §3.2 of that RFC asks of a server ("SHOULD elect to store responses to grouped commands in
 * an internal buffer"); replies that stand alone, such as the 250 after a commit, leave in
 * the same turn as before. On the plain connection only: after STARTTLS the TLS socket writes
 * past this one.
 */
export function batchReplies(socket: Socket): void {
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
