import type { ServerResponse } from 'node:http';

/** An answer ready to be written: its status and headers (a flat [name, value, …] list) and body. */
interface QueuedAnswer {
  res: ServerResponse;
  status: number;
  headers: readonly string[];
  body: Buffer | undefined;
}

/**
 * Writes the answers of one turn of the event loop together, at its end (`setImmediate`, after
 * every request read in that turn has been handled), instead of each as soon as it is ready.
 * Each answer is still one write to its own socket, but a client with many connections
 * (a proxy, an ingress, a load generator) is woken once for the turn's answers rather than
 * once per answer, and this process handles its requests and then writes, in two tight runs:
 * measured on the bench's pixel and redirect, 6-9 µs less CPU per answer for this service and
 * 4-6 for the load generator (docs/benchmarks.md, session 32). An answer waits at most for the
 * other requests of its turn; a lone request, for one `setImmediate`. Corking each connection
 * until the end of the turn instead (`writePerTurn`, as the MX and the webhook client do) measured
 * worse here (29-38 µs per answer, the load generator 19-27, against 27-31 and 17-23): deferring
 * the whole answer also moves Node's end of the response (its 'finish', the next keep-alive
 * request's turn) into the same burst.
 */
export class EndOfTurnAnswers {
  private queued: QueuedAnswer[] = [];
  private readonly writeAll = () => {
    const answers = this.queued;
    this.queued = [];
    for (const a of answers) {
      // A client gone in the meantime gets nothing; the others are still answered.
      if (a.res.destroyed) continue;
      try {
        a.res.writeHead(a.status, a.headers as string[]);
        a.res.end(a.body);
      } catch (err) {
        this.onError(err, a.res);
      }
    }
  };

  constructor(private readonly onError: (err: unknown, res: ServerResponse) => void) {}

  /** Answers `res` at the end of this turn. */
  answer(res: ServerResponse, status: number, headers: readonly string[], body?: Buffer): void {
    if (this.queued.length === 0) setImmediate(this.writeAll);
    this.queued.push({ res, status, headers, body });
  }

  /** Answers waiting for the end of the turn. */
  get size(): number {
    return this.queued.length;
  }
}
