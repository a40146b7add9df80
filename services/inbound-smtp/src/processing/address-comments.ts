/**
 * An address header's value with its RFC 5322 comments (§3.2.2) taken out. mailparser's address
 * parser misreads comments that are nested, hold a quoted-pair, or sit inside an address, as in
 * RFC 5322's own example (Appendix A.5) `Pete(A nice \) chap) <pete(his account)@silly.test(his host)>`,
 * which it turns into the address `account)@silly.test(his`. Comments say nothing about where
 * mail goes, so they are dropped, except the old `ada@example.com (Ada Lovelace)` convention: a
 * mailbox that is a bare address keeps the last comment after it as a quoted display name. A
 * comment before it or inside it (`(Outlook) bob@x`) is no name: RFC 5322 makes no comment a
 * phrase, and only the one after the address was ever written as one.
 *
 * Works on the unfolded value as a binary string (one char per byte), so 8-bit text passes through.
 */
export function withoutAddressComments(value: string): string {
  let out = '';
  let segment = '';
  // The comments after the mailbox's last word so far.
  let comments: string[] = [];
  let hasAngle = false;
  let inAngle = false;
  let inQuote = false;
  let depth = 0;
  let comment = '';

  // A mailbox ends at `,` or `;` (or the end); a group's name ends at `:` and is left as it is.
  const flush = (delimiter: string) => {
    const name = comments.map((c) => c.replace(/\s+/g, ' ').trim()).filter((c) => c !== '').pop();
    const bare = segment.trim().replace(/\s*([@.])\s*/g, '$1');
    if (delimiter !== ':' && !hasAngle && name !== undefined && bare.includes('@') && !/\s/.test(bare)) {
      out += ` "${name.replace(/["\\]/g, '\\$&')}" <${bare}>`;
    } else {
      out += !hasAngle && bare.includes('@') ? ` ${bare}` : segment;
    }
    out += delimiter;
    segment = '';
    comments = [];
    hasAngle = false;
  };

  for (let i = 0; i < value.length; i += 1) {
    const c = value[i] as string;
    if (depth > 0) {
      if (c === '\\' && i + 1 < value.length) {
        i += 1;
        comment += value[i];
      } else if (c === '(') {
        depth += 1;
        comment += ' ';
      } else if (c === ')') {
        depth -= 1;
        if (depth === 0) {
          comments.push(comment);
          comment = '';
          // A comment separates words of a phrase; inside an address it is nothing.
          if (!inAngle) segment += ' ';
        } else {
          comment += ' ';
        }
      } else {
        comment += c;
      }
      continue;
    }
    if (inQuote) {
      segment += c;
      comments = [];
      if (c === '\\' && i + 1 < value.length) {
        i += 1;
        segment += value[i];
      } else if (c === '"') {
        inQuote = false;
      }
      continue;
    }
    if (c === '(') {
      depth = 1;
      continue;
    }
    if (c === '"') inQuote = true;
    else if (c === '<') {
      inAngle = true;
      hasAngle = true;
    } else if (c === '>') inAngle = false;
    else if (!inAngle && (c === ',' || c === ';' || c === ':')) {
      flush(c);
      continue;
    }
    if (c !== ' ' && c !== '\t') comments = [];
    segment += c;
  }
  // An unclosed comment runs to the end of the field (RFC 5322 has none; mail has them).
  if (depth > 0) comments.push(comment);
  flush('');
  return out;
}

/** Whether a header value has a comment at all (a `(` outside a quoted string). */
export function hasComment(value: string): boolean {
  return /^(?:[^"(\\]|\\.|"(?:[^"\\]|\\.)*")*\(/s.test(value);
}
