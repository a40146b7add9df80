/** A header that holds msg-ids read as tokens: each `<…>` as written, and the other words (atoms and quoted strings, as written). */
export interface MsgIdTokens {
  ids: string[];
  words: string[];
}

/**
 * A Message-ID, In-Reply-To, References or Content-ID value read as RFC 5322 §3.6.4 writes it:
 * msg-ids between CFWS, comments (nested, with quoted-pairs, §3.2.2) left out, and the words of
 * the obsolete phrases In-Reply-To and References allow (§4.5.4) kept apart. An id runs from `<`
 * to the next `>`; a `<` without one is a word. Linear in the value's length.
 */
export function msgIdTokens(value: string): MsgIdTokens {
  const ids: string[] = [];
  const words: string[] = [];
  let at = 0;
  while (at < value.length) {
    const c = value[at] as string;
    if (c === ' ' || c === '\t' || c === '\r' || c === '\n') {
      at += 1;
    } else if (c === '(') {
      at = commentEnd(value, at);
    } else if (c === '<' && value.indexOf('>', at) > at) {
      const end = value.indexOf('>', at) + 1;
      ids.push(value.slice(at, end));
      at = end;
    } else {
      // A word, up to white space, a comment or an id; a quoted string in it is taken whole.
      let end = at;
      do {
        end = value[end] === '"' ? quotedEnd(value, end) : end + 1;
      } while (end < value.length && !/[\s(<]/.test(value[end] as string));
      words.push(value.slice(at, end));
      at = end;
    }
  }
  return { ids, words };
}

/** Where the comment that opens at `start` ends (after its `)`, or the value's end when it is never closed). */
function commentEnd(value: string, start: number): number {
  let depth = 0;
  for (let at = start; at < value.length; at += 1) {
    const c = value[at];
    if (c === '\\') at += 1;
    else if (c === '(') depth += 1;
    else if (c === ')' && --depth === 0) return at + 1;
  }
  return value.length;
}

/** Where the quoted string that opens at `start` ends (after its closing quote, or the value's end). */
function quotedEnd(value: string, start: number): number {
  for (let at = start + 1; at < value.length; at += 1) {
    const c = value[at];
    if (c === '\\') at += 1;
    else if (c === '"') return at + 1;
  }
  return value.length;
}

/**
 * A Content-ID as the API gives it (RFC 2045 §7: a msg-id): without its angle brackets, the space
 * inside them and the comments around it (`<p1@x> (comment)` and `(Outlook) < p1@x >` are `p1@x`);
 * one written without brackets as it is, comments left out. Null when nothing is left.
 */
export function contentIdOf(value: string | undefined): string | null {
  if (value === undefined) return null;
  const { ids, words } = msgIdTokens(value);
  const id = ids[0] === undefined ? words.join(' ') : ids[0].slice(1, -1).trim();
  return id === '' ? null : id;
}
