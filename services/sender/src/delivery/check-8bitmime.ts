import { PassThrough, type Transform } from 'node:stream';
import type SMTPPool from 'nodemailer/lib/smtp-pool';
import type { PooledTransport } from './transport-pool';

/** Where sendMail options carry the {@link EightBitCheck} of a message with 8-bit bytes. */
export const EIGHT_BIT_CHECK = 'mailroomEightBitCheck';

/** One send of a message with 8-bit bytes; `refused` is set when its connection offered no 8BITMIME. */
export interface EightBitCheck {
  refused: boolean;
}

/**
 * Keeps a message with 8-bit bytes (`[EIGHT_BIT_CHECK]` in its sendMail options) from going to a
 * next hop that did not offer 8BITMIME (RFC 6152 §3), so that the deliverer sends a 7-bit copy
 * instead. A 'stream' plugin: for a pooled send, nodemailer builds the message stream on the
 * connection that will carry it, after EHLO, right before MAIL FROM (PoolResource.send:
 * getEnvelope, createReadStream, then SMTPConnection.send with that envelope), the one moment the
 * message and the hop's extensions meet. Without 8BITMIME the check empties the envelope's
 * recipients, which nodemailer refuses before any command ('No recipients defined', EENVELOPE),
 * then resets the session (RSET) and keeps the connection; `refused` says why.
 */
export function check8BitMime(transport: PooledTransport, pool: SMTPPool): void {
  transport.use('stream', (mail, done) => {
    const check = (mail.data as { [EIGHT_BIT_CHECK]?: EightBitCheck })[EIGHT_BIT_CHECK];
    if (check) {
      // nodemailer calls a transform given as a function once per stream it builds (typed as a stream only).
      mail.message.transform((() => {
        if (!offeredExtensions(pool, mail)?.includes('8BITMIME')) {
          check.refused = true;
          mail.message.getEnvelope().to = [];
        }
        return new PassThrough();
      }) as unknown as Transform);
    }
    done();
  });
}

/** What of nodemailer 10.6's pool {@link offeredExtensions} reads that its types leave out (marked @internal there). */
interface PoolInternals {
  _connections?: Array<{
    queueEntry?: { mail?: unknown } | false;
    connection?: { _supportedExtensions?: unknown };
  }>;
}

/**
 * The extensions the next hop offered (EHLO) on the pooled connection now sending `mail`, or null
 * when that cannot be found (the message then goes 7-bit, which every hop takes). nodemailer keeps
 * them private: `SMTPConnection._supportedExtensions` is the list it checks itself before writing
 * BODY=8BITMIME, so this decision and the MAIL it sends agree. The connection is the pool resource
 * (`SMTPPool._connections`) whose queue entry is this mail. The aiosmtpd tests with and without
 * 8BITMIME (eight-bit-downgrade.test.ts) fail if a nodemailer upgrade changes any of this.
 */
function offeredExtensions(pool: SMTPPool, mail: unknown): readonly string[] | null {
  const resource = (pool as unknown as PoolInternals)._connections?.find((r) => r.queueEntry && r.queueEntry.mail === mail);
  const extensions = resource?.connection?._supportedExtensions;
  return Array.isArray(extensions) ? extensions : null;
}
