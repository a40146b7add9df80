import type { Readable } from 'node:stream';
import type { ByteBudget } from '@mailroom/core';

/** Longest line accepted in DATA, in bytes without its line ending (DESIGN §7: real mail exceeds RFC 5321's 1,000). */
export const MAX_LINE_BYTES = 65_536;

const LF = 0x0a;
const CR = 0x0d;

export type ReceivedData =
  /** `raw`'s bytes are still taken from the `memory` given: the caller releases them. */
  | { ok: true; raw: Buffer }
  /**
   * `size`: over SIZE (smtp-server answers 552); `line`: a line over MAX_LINE_BYTES; `memory`:
   * the process's message memory is full; `aborted`: the client left.
   */
  | { ok: false; reason: 'size' | 'line' | 'memory' | 'aborted' };

/**
 * The length of the line being read, across chunks, so a line over the limit is found
 * whatever the chunking. A line's ending (LF, or CRLF) does not count against it.
 */
class LineLength {
  // Bytes of the current line so far, and whether the last of them was CR.
  private line = 0;
  private lastWasCr = false;

  constructor(private readonly maxLineBytes: number) {}

  /** Takes the next chunk; true once a line is longer than the limit. */
  exceeded(chunk: Buffer): boolean {
    if (chunk.length === 0) return false;
    // Most chunks cannot hold a line over the limit, even counting the line carried over: then
    // only the bytes after the chunk's last LF matter (one search instead of one per line).
    if (this.line + chunk.length <= this.maxLineBytes) {
      const lf = chunk.lastIndexOf(LF);
      this.line = lf === -1 ? this.line + chunk.length : chunk.length - lf - 1;
      this.lastWasCr = chunk[chunk.length - 1] === CR;
      return false;
    }
    let start = 0;
    for (let lf = chunk.indexOf(LF, start); lf !== -1; lf = chunk.indexOf(LF, start)) {
      const before = lf > start ? chunk[lf - 1] === CR : this.lastWasCr;
      if (this.line + (lf - start) - (before ? 1 : 0) > this.maxLineBytes) return true;
      this.line = 0;
      this.lastWasCr = false;
      start = lf + 1;
    }
    if (start < chunk.length) {
      this.line += chunk.length - start;
      this.lastWasCr = chunk[chunk.length - 1] === CR;
    }
    // A CR may still turn out to end the line, so it is not counted against it yet.
    return this.line - (this.lastWasCr ? 1 : 0) > this.maxLineBytes;
  }
}

export interface ReceiveOptions {
  maxLineBytes?: number;
  /** The process's message memory: each chunk is taken from it as it arrives. */
  memory?: ByteBudget;
}

/**
 * Reads a DATA stream (smtp-server's, dot-unstuffed, ending only at CRLF.CRLF) to its end,
 * keeping the bytes while the message stays within SIZE, every line within MAX_LINE_BYTES and
 * the process within its message memory. Past any limit what was kept is dropped (and given
 * back to the memory) and the rest is read and dropped, so the client gets its reply after its
 * final dot and memory stays bounded.
 */
export function receiveData(stream: Readable & { sizeExceeded?: boolean }, options: ReceiveOptions = {}): Promise<ReceivedData> {
  const { maxLineBytes = MAX_LINE_BYTES, memory } = options;
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    const lines = new LineLength(maxLineBytes);
    let length = 0;
    let failure: 'size' | 'line' | 'memory' | null = null;
    let settled = false;
    const fail = (reason: 'size' | 'line' | 'memory') => {
      failure = reason;
      chunks.length = 0;
      memory?.release(length);
      length = 0;
    };
    const settle = (result: ReceivedData) => {
      if (settled) return;
      settled = true;
      if (!result.ok) memory?.release(length);
      resolve(result);
    };

    stream.on('data', (chunk: Buffer) => {
      if (failure || settled) return;
      if (stream.sizeExceeded) return fail('size');
      if (lines.exceeded(chunk)) return fail('line');
      if (memory && !memory.take(chunk.length)) return fail('memory');
      chunks.push(chunk);
      length += chunk.length;
    });
    stream.on('end', () => {
      if (stream.sizeExceeded && failure !== 'size') fail('size');
      if (failure) settle({ ok: false, reason: failure });
      else settle({ ok: true, raw: Buffer.concat(chunks, length) });
    });
    // A client that disconnects mid-DATA: smtp-server destroys the stream, with an error when
    // someone listens for one; after 'end' (already settled) these change nothing.
    stream.on('error', () => settle({ ok: false, reason: 'aborted' }));
    stream.on('close', () => settle({ ok: false, reason: 'aborted' }));
  });
}
