import { createInterface } from 'node:readline';
import type { Readable, Writable } from 'node:stream';

// Cyan, magenta, yellow, green, blue, bright red: distinct on dark and light terminals.
const COLOURS = [36, 35, 33, 32, 34, 91];

/** A `[name]` tag padded to `width`, coloured only when the output is a terminal. */
export function makeTag(name: string, index: number, width: number, colour: boolean): string {
  const tag = `[${name}]`.padEnd(width + 2);
  return colour ? `\u001b[${COLOURS[index % COLOURS.length]}m${tag}\u001b[0m` : tag;
}

/** Copies `input` to `output` line by line, each line passed through `format` and prefixed with `tag`. */
export function prefixLines(input: Readable, output: Writable, tag: string, format: (line: string) => string = (line) => line): void {
  const lines = createInterface({ input, crlfDelay: Number.POSITIVE_INFINITY });
  lines.on('line', (line) => output.write(`${tag} ${format(line)}\n`));
}
