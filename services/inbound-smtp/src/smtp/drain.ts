import type { SMTPServer } from 'smtp-server';

/** The reply to connections while draining: 421 with this enhanced code and text. */
export const SHUTTING_DOWN = { enhancedCode: '4.3.2', text: 'Service shutting down; try again later.' } as const;

/**
 * SIGTERM for the MX: from `drain()` on, new connections get `421 4.3.2` at connect, idle ones
 * are told the same and closed, and messages in DATA finish (stored, answered) before their
 * connection is closed; then the listener stops. The wait for messages in DATA is bounded.
 */
export class Drain {
  private draining = false;
  private readonly inData = new Map<string, Promise<unknown>>();

  get isDraining(): boolean {
    return this.draining;
  }

  /** Runs one message's DATA handling; `drain()` waits for it, and closes the session after it when draining. */
  async track<T>(sessionId: string, work: Promise<T>): Promise<T> {
    this.inData.set(sessionId, work);
    try {
      return await work;
    } finally {
      this.inData.delete(sessionId);
    }
  }

  /** After a message's reply: a session of a draining server is closed rather than offered another message. */
  afterReply(server: SMTPServer, sessionId: string): void {
    if (this.draining) close(server, sessionId);
  }

  /** Stops the MX as described above; waits at most `timeoutMs` for messages in DATA, then closes the listener. */
  async drain(server: SMTPServer, timeoutMs: number): Promise<void> {
    this.draining = true;
    for (const connection of [...server.connections]) {
      if (!this.inData.has(connection.id)) close(server, connection.id);
    }
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, timeoutMs);
    });
    await Promise.race([Promise.allSettled([...this.inData.values()]), deadline]);
    clearTimeout(timer);
    for (const connection of [...server.connections]) close(server, connection.id);
    // Bounded by smtp-server's closeTimeout, after which it drops what is still open.
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }

}

function close(server: SMTPServer, sessionId: string): void {
  for (const connection of server.connections) {
    // A 421 makes smtp-server close the connection after writing it.
    if (connection.id === sessionId) connection.send(421, `${SHUTTING_DOWN.enhancedCode} ${SHUTTING_DOWN.text}`, false);
  }
}
