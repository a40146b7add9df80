// The few functions used from packages that ship no types.
declare module 'libmime' {
  // The module is one instance whose methods live on its prototype: import the default.
  const libmime: {
    /** Decodes RFC 2047 encoded words ("=?UTF-8?B?…?="); throws on a charset it cannot handle. */
    decodeWords(value: string): string;
    /** Splits "Key: value" and unfolds the value (a binary string: one char per byte). */
    decodeHeader(line: string): { key: string; value: string };
    /** Splits a structured value ("attachment; filename*=…") into value and params, RFC 2231 continuations joined and decoded. */
    parseHeaderValue(value: string): { value: string; params: Record<string, string | undefined> };
  };
  export default libmime;
}

declare module 'html-to-text' {
  export function convert(html: string, options?: { wordwrap?: number | false; selectors?: unknown[] }): string;
}

// 1.9 (CommonJS, Node ≥ 10): 2.x is ESM-only and asks for Node 22, which jest here cannot load.
declare module 'email-reply-parser' {
  export default class EmailReplyParser {
    /** The reply's visible text: quoted history and signature removed. */
    parseReply(text: string): string;
  }
}

// The parser's pattern lists, one instance shared by every parser: text-reply.ts takes out some.
declare module 'email-reply-parser/lib/regex' {
  const patterns: {
    /** A line matching one of these starts a signature. */
    signatureRegex: RegExp[];
  };
  export default patterns;
}
