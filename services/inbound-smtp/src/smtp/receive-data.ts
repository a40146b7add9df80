import type { Readable } from 'node:stream';

/** Longest line accepted in DATA, in bytes without its line ending (DESIGN §7: real mail exceeds RFC 5321's 1,000). */
export const MAX_LINE_BYTES = 65_536;

const LF = 0x0a;
const CR = 0x0d;

export type ReceivedData =
  | { ok: true; raw: Buffer }
  /** `size`: over SIZE (smtp-server answers 552); `line`: a line over MAX_LINE_BYTES; `aborted`: the client left. */
  | { ok: false; reason: 'size' | 'line' | 'aborted' };

/**
 * Reads a DATA stream (smtp-server's, dot-unstuffed, ending only at CRLF.CRLF) to its end,
 * keeping the bytes while the message stays within SIZE and every line within
 * MAX_LINE_BYTES. Past either limit the rest is read and dropped, so the client gets its
 * reply after its final dot and memory stays bounded.
 */
export function receiveData(stream: Readable & { sizeExceeded?: boolean }, maxLineBytes = MAX_LINE_BYTES): Promise<ReceivedData> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let length = 0;
    let failure: 'size' | 'line' | null = null;
    // Bytes of the current line so far, and whether the last of them was CR.
    let line = 0;
    let lastWasCr = false;

    const tooLong = (chunk: Buffer): boolean => {
      let start = 0;
      for (let lf = chunk.indexOf(LF, start); lf !== -1; lf = chunk.indexOf(LF, start)) {
        const before = lf > start ? chunk[lf - 1] === CR : lastWasCr;
        if (line + (lf - start) - (before ? 1 : 0) > maxLineBytes) return true;
        line = 0;
        lastWasCr = false;
        start = lf + 1;
      }
      if (start < chunk.length) {
        line += chunk.length - start;
        lastWasCr = chunk[chunk.length - 1] === CR;
      }
      // A CR may still turn out to end the line, so it is not counted against it yet.
      return line - (lastWasCr ? 1 : 0) > maxLineBytes;
    };

    stream.on('data', (chunk: Buffer) => {
      if (failure) return;
      if (stream.sizeExceeded) failure = 'size';
      else if (tooLong(chunk)) failure = 'line';
      if (failure) {
        chunks.length = 0;
        return;
      }
      chunks.push(chunk);
      length += chunk.length;
    });
    stream.once('end', () => {
      if (stream.sizeExceeded) failure = 'size';
      resolve(failure ? { ok: false, reason: failure } : { ok: true, raw: Buffer.concat(chunks, length) });
    });
    // A client that disconnects mid-DATA: smtp-server destroys the stream, with an error when
    // someone listens for one.
    stream.once('error', () => resolve({ ok: false, reason: 'aborted' }));
    stream.once('close', () => {
      if (!stream.readableEnded) resolve({ ok: false, reason: 'aborted' });
    });
  });
}
