import { randomBytes } from 'node:crypto';
import type { Socket } from 'node:net';
import type { TLSSocket } from 'node:tls';
import { SMTPServer } from 'smtp-server';
import { SMTPConnection, type SMTPConnectionOptions } from 'smtp-server/lib/smtp-connection';
import { readProxyHeaderV2 } from './proxy-header-v2';
import { hasNonAsciiPath, smtpUtf8Required } from './smtputf8-paths';

type ParsedAddress = ReturnType<SMTPConnection['_parseAddressCommand']>;
type CommandHandler = NonNullable<ReturnType<SMTPConnection['_getHandler']>>;

// A reply text that begins with its own RFC 3463 code (`5.5.1 …`): the library adds none.
const ENHANCED_CODE = /^([245])\.\d{1,3}\.\d{1,3} /;
// An RFC 5321 Quoted-string local part (qtextSMTP, quoted-pairSMTP, and UTF-8 under SMTPUTF8),
// after `<` and an optional source route, before `@`.
const QUOTED_LOCAL = /<((?:@[^\s<>"@:]+(?:,@[^\s<>"@:]+)*:)?)("(?:[^"\\\p{Cc}\u200b\u2060\ufeff]|\\[\x20-\x7e])*")@/u;
// A path whose local part opens a quote QUOTED_LOCAL does not close: a syntax error.
const OPEN_QUOTE = /<(?:@[^\s<>"@:]+(?:,@[^\s<>"@:]+)*:)?"/;
// Stands in for a quoted local part while the library parses the rest: no space, `@` or `<>`.
const PLACEHOLDER = '"q"';
// RFC 5321 §4.5.3.1.3: a path of 256 octets with its `<` and `>`, so a mailbox (local part, `@`
// and domain) of 254. The library holds it to 253 (see atFullLength).
const MAX_ADDRESS_OCTETS = 254;
// The path of a MAIL or RCPT line, after an optional source route: the mailbox in group 1.
const PATH_MAILBOX = /<(?:@[^\s<>"@:]+(?:,@[^\s<>"@:]+)*:)?([^\s<>"]+)>/;
// After a client's FIN, how long the replies still owed to it are waited for (ms).
const HALF_CLOSED_REPLY_MS = 3_000;
// U+FFFD: bytes of the command that were not UTF-8.
const NOT_UTF8 = '\ufffd';

/**
 * Commands RFC 5321 or an extension defines that the MX does not implement: `502 5.5.1` (RFC
 * 5321 §4.2.4: 502 for a command recognized but not implemented, 500 for one not recognized).
 * EXPN (§3.5.2, optional), TURN, SEND, SOML, SAML (appendix F, obsolete), BDAT (CHUNKING), ETRN
 * and ATRN: none is offered in EHLO.
 */
const NOT_IMPLEMENTED: ReadonlySet<string> = new Set(['EXPN', 'TURN', 'SEND', 'SOML', 'SAML', 'BDAT', 'ETRN', 'ATRN']);

const notImplemented: CommandHandler = function (this: SMTPConnection, command, callback) {
  const name = command.toString().trim().split(/\s+/, 1)[0]?.toUpperCase() ?? '';
  if (name === 'BDAT') {
    // RFC 3030: a chunk of the size BDAT names follows its line at once. Read as command
    // lines, its bytes would run (a message smuggling transactions of its own), so the
    // connection ends here, as Postfix's does when CHUNKING is off.
    this.send(502, '5.5.1 BDAT not implemented (CHUNKING is not offered); closing connection.');
    this.close();
  } else {
    this.send(502, `5.5.1 ${name} not implemented.`);
  }
  callback();
};

// SP and HTAB at the end of a command line.
const TRAILING_WHITE_SPACE = /[ \t]+$/;

/** Whether a command line (trailing white space removed) has anything after its verb. */
function hasParameters(command: Buffer): boolean {
  return /^\S+\s+\S/.test(command.toString());
}

/**
 * smtp-server's connection, with what RFC 5321 and 6531 ask of an MX that the library does not
 * do: quoted local parts with spaces (`"john doe"@x`), 501 for an address of bytes that are not
 * UTF-8, 553 5.6.7 for a UTF-8 address in a transaction without SMTPUTF8 (RFC 6531 §3.4), 502
 * for commands known but not implemented (and the end of the connection after BDAT),
 * 501 for DATA or RSET with parameters, trailing white space tolerated after a command, a VRFY
 * reply that claims nothing, and handler errors whose text carries its own enhanced status code.
 */
class MxConnection extends SMTPConnection {
  /** A reply text that begins with an enhanced code is written as it is, without the library's default for the basic code. */
  override send(code: number, data?: string | string[] | null, context?: string | false): void {
    const own = context === undefined && typeof data === 'string' ? ENHANCED_CODE.exec(data) : null;
    const send = () => super.send(code, data, own && own[1] === String(code)[0] ? false : context);
    // The library writes a reply only while the socket's readyState is 'open'. After the
    // client's FIN (see _createParser) it is 'writeOnly', and the replies still owed must go out.
    if (this._socket.readyState === 'writeOnly') asIfOpen(this._socket, send);
    else send();
  }

  /**
   * RFC 5321 §3.5.3 and §7.3: a server that does not verify answers 252, which must not read as
   * a verified address; the library's 2.1.5 ("destination address valid", RFC 3463) does.
   */
  override handler_VRFY(command: Buffer, callback: () => void): void {
    // Without an argument: the library's 501.
    if (!/^\S+\s+\S/.test(command.toString().trim())) {
      super.handler_VRFY(command, callback);
      return;
    }
    this.send(252, '2.0.0 Cannot VRFY the address; send mail to it and the MX will decide.');
    callback();
  }

  /**
   * RFC 5321 §4.1.1: "SMTP receivers SHOULD tolerate trailing white space before the
   * terminating <CRLF>"; the library finds the verb by splitting at spaces only, so `RSET<TAB>`
   * was an unrecognized command.
   */
  override _onCommand(command: Buffer, callback?: () => void): void {
    // Almost every line ends otherwise: one byte looked at, no copy.
    const last = command[command.length - 1];
    if (last !== 0x20 && last !== 0x09) {
      super._onCommand(command, callback);
      return;
    }
    const line = command.toString('latin1');
    const trimmed = line.replace(TRAILING_WHITE_SPACE, '');
    super._onCommand(trimmed.length === line.length ? command : Buffer.from(trimmed, 'latin1'), callback);
  }

  /** RFC 6531 §3.4: a UTF-8 reverse-path only with the SMTPUTF8 parameter on this MAIL (553 5.6.7). */
  override handler_MAIL(command: Buffer, callback: () => void): void {
    // The path is looked at first (nearly every line is ASCII, and this is the MX's hot path);
    // a nested MAIL or a syntax error: the library's 503 or 501 comes first.
    if (hasNonAsciiPath(command) && !this.session.envelope.mailFrom) {
      const parsed = this._parseAddressCommand('mail from', command);
      if (parsed && !declaresSmtpUtf8(parsed)) {
        this.refuseNonAsciiPath(callback);
        return;
      }
    }
    super.handler_MAIL(command, callback);
  }

  /**
   * REQUIRETLS (RFC 8689) is not offered, so like every parameter EHLO did not announce it is
   * onMailFrom's 555 (RFC 5321 §4.1.1.11); the library checked it first (530 over plaintext,
   * 501 with a value) as if it were offered.
   */
  override _validateMailParams(parsed: Parameters<SMTPConnection['_validateMailParams']>[0]): ReturnType<SMTPConnection['_validateMailParams']> {
    const args = parsed.args as Record<string, unknown> | false;
    if (!args || !('REQUIRETLS' in args)) return super._validateMailParams(parsed);
    const { REQUIRETLS: _unoffered, ...offered } = args;
    return super._validateMailParams({ ...parsed, args: offered as typeof parsed.args });
  }

  /** RFC 6531 §3.4: a UTF-8 forward-path only in a transaction begun with SMTPUTF8 (553 5.6.7). */
  override handler_RCPT(command: Buffer, callback: () => void): void {
    // The accepted MAIL's own parameters, not the library's envelope flag, which a refused MAIL sets too.
    const mailFrom = this.session.envelope.mailFrom;
    // Out of sequence or a syntax error: the library's 503 or 501 comes first.
    if (hasNonAsciiPath(command) && mailFrom && !declaresSmtpUtf8(mailFrom) && this._parseAddressCommand('rcpt to', command)) this.refuseNonAsciiPath(callback);
    else super.handler_RCPT(command, callback);
  }

  /** Answers 553 5.6.7: a path with characters outside ASCII in a transaction without SMTPUTF8. */
  private refuseNonAsciiPath(callback: () => void): void {
    const refused = smtpUtf8Required();
    this.send(refused.responseCode, refused.message);
    callback();
  }

  /** RFC 5321 §4.1.1.4: `DATA` CRLF takes no parameters (501); the library went into DATA anyway. */
  override handler_DATA(command: Buffer, callback: () => void): void {
    if (!this.refusedParameters(command, 'DATA', callback)) super.handler_DATA(command, callback);
  }

  /** RFC 5321 §4.1.1.5: `RSET` CRLF takes no parameters (501, and the transaction stays). */
  override handler_RSET(command: Buffer, callback: () => void): void {
    if (!this.refusedParameters(command, 'RSET', callback)) super.handler_RSET(command, callback);
  }

  /** Answers 501 to a command that takes no parameters but was given some; false when it was given none. */
  private refusedParameters(command: Buffer, verb: string, callback: () => void): boolean {
    if (!hasParameters(command)) return false;
    this.send(501, `5.5.4 Syntax: ${verb} takes no parameters.`);
    callback();
    return true;
  }

  /**
   * The server listens with `allowHalfOpen` (createMxServer), so a client that half-closes its
   * side after its last command (`shutdown(SHUT_WR)` right after the final dot, or after QUIT)
   * still gets every reply: RFC 5321 §4.1.1.4 and §6.1, the 250 of a message taken into our
   * care must be sent. Once the parser has run everything the client sent before its FIN (a
   * message's reply included: the parser waits for it), the connection ends from our side too.
   */
  override _createParser(): ReturnType<SMTPConnection['_createParser']> {
    const parser = super._createParser();
    parser.once('finish', () => {
      if (this._parser === parser && !this._closing && !this._closed) this.close();
    });
    return parser;
  }

  /**
   * A FIN cannot say whether the client only half-closed or left for good: the replies still
   * owed are waited for at most HALF_CLOSED_REPLY_MS (a commit or a route lookup stalled behind
   * a slow PostgreSQL), so a departed client's session, and its per-IP slot, never outlive that.
   */
  override _setListeners(callback: () => void): void {
    const socket = this._socket;
    socket.once('end', () => {
      if (this._socket !== socket) return;
      const timer = setTimeout(() => {
        if (!this._closed && this._socket === socket) socket.destroy();
      }, HALF_CLOSED_REPLY_MS);
      timer.unref();
      socket.once('close', () => clearTimeout(timer));
    });
    super._setListeners(callback);
  }

  /**
   * A TLS session keeps node's default (a FIN ends both sides): the TLS socket takes
   * `allowHalfOpen` from the socket under it, and its own parser is piped only after the
   * handshake, so a client leaving mid-handshake would otherwise hold its connection open.
   */
  override upgrade(callback: () => void, secureCallback?: () => void): void {
    this._socket.allowHalfOpen = false;
    super.upgrade(callback, secureCallback);
  }

  override _getHandler(command: string): CommandHandler | undefined {
    return NOT_IMPLEMENTED.has(command) ? notImplemented : super._getHandler(command);
  }

  /**
   * The library splits the command at spaces and the address at `@`, so a Quoted-string local
   * part (RFC 5321 §4.1.2: `"john doe"@x`, `"a@b"@x`) was a syntax error: it parses the path
   * with a placeholder for that local part, then puts the local part back. A MAIL or RCPT line
   * with bytes that are not UTF-8 (RFC 6531: addresses are ASCII, or UTF-8 under SMTPUTF8) is a
   * syntax error rather than an address with U+FFFD in it.
   */
  override _parseAddressCommand(rawName: string, rawCommand: Buffer | string): ParsedAddress {
    const line = rawCommand.toString();
    if (line.includes(NOT_UTF8)) return false;
    const quoted = line.includes('"') ? QUOTED_LOCAL.exec(line) : null;
    if (!quoted) return OPEN_QUOTE.test(line) ? false : (super._parseAddressCommand(rawName, line) || this.atFullLength(rawName, line));
    const [match, route = '', local = ''] = quoted;
    const start = quoted.index + 1 + route.length;
    const parsed = super._parseAddressCommand(rawName, `${line.slice(0, start)}${PLACEHOLDER}${line.slice(quoted.index + match.length - 1)}`);
    if (parsed === false || !parsed.address.startsWith(`${PLACEHOLDER}@`)) return parsed;
    const address = local + parsed.address.slice(PLACEHOLDER.length);
    return Buffer.byteLength(address) <= MAX_ADDRESS_OCTETS ? { ...parsed, address } : false;
  }

  /**
   * A mailbox of exactly 254 octets, which RFC 5321 allows and the library refuses (it counts
   * the path's `@` as punctuation, so 253): parsed with one letter or digit of its local part
   * left out, which changes none of the library's checks (dots at the edges or doubled, the
   * characters allowed), then put back. False for anything else the library refused.
   */
  private atFullLength(rawName: string, line: string): ParsedAddress {
    const path = PATH_MAILBOX.exec(line);
    const mailbox = path?.[1];
    if (!path || !mailbox || Buffer.byteLength(mailbox) !== MAX_ADDRESS_OCTETS) return false;
    const at = mailbox.lastIndexOf('@');
    const local = mailbox.slice(0, at);
    const letter = local.search(/[A-Za-z0-9](?=[A-Za-z0-9])/);
    if (at < 0 || letter < 0) return false;
    const shorter = local.slice(0, letter) + local.slice(letter + 1);
    const start = path.index + path[0].length - 1 - mailbox.length;
    const parsed = super._parseAddressCommand(rawName, `${line.slice(0, start)}${shorter}${line.slice(start + local.length)}`);
    if (parsed === false || !parsed.address.startsWith(`${shorter}@`)) return parsed;
    return { ...parsed, address: local + parsed.address.slice(shorter.length) };
  }
}

/** Runs `write` while `socket.readyState` reads 'open' (an own property over the prototype's getter, removed after). */
function asIfOpen(socket: Socket, write: () => void): void {
  Object.defineProperty(socket, 'readyState', { value: 'open', configurable: true });
  try {
    write();
  } finally {
    delete (socket as { readyState?: string }).readyState;
  }
}

/** Whether a MAIL FROM carried the SMTPUTF8 parameter (smtp-server upper-cases the names). */
function declaresSmtpUtf8(mailFrom: { args: object | false }): boolean {
  return mailFrom.args !== false && (mailFrom.args as Record<string, unknown>).SMTPUTF8 === true;
}

type ProxyCallback = Parameters<SMTPServer['_handleProxy']>[1];

/**
 * smtp-server with MxConnection for its connections, and PROXY protocol v2 (binary) read beside
 * the library's v1 (text): each connection from a balancer may send either.
 */
export class MxSmtpServer extends SMTPServer {
  override _handleProxy(socket: Socket, callback: ProxyCallback): void {
    if (!this._expectsProxyHeader(socket)) {
      super._handleProxy(socket, callback);
      return;
    }
    readProxyHeaderV2(socket, (err, outcome) => {
      if (err || !outcome) {
        // Nothing can be answered before the header; a late socket error must not go unhandled.
        socket.on('error', () => undefined);
        socket.destroy();
        callback(err ?? new Error('no PROXY header'));
      } else if (outcome.version === 1) {
        super._handleProxy(socket, callback);
      } else {
        const { client } = outcome;
        callback(null, { id: sessionId(), ...(client ? { remoteAddress: client.address, remotePort: client.port } : {}) });
      }
    });
  }

  override connect(socket: Socket | TLSSocket, socketOptions?: SMTPConnectionOptions | null): void {
    // As SMTPServer.connect, with the subclass.
    const connection = new MxConnection(this, socket, socketOptions);
    this.connections.add(connection);
    connection.on('error', (err: Error) => this._onError(err));
    connection.on('connect', (data: Parameters<SMTPServer['_onClientConnect']>[0]) => this._onClientConnect(data));
    connection.init();
  }
}

/** A session id as smtp-server makes them: 80 random bits, 16 base-32 digits. */
function sessionId(): string {
  return BigInt(`0x${randomBytes(10).toString('hex')}`)
    .toString(32)
    .padStart(16, '0');
}
