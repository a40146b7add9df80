import type { Email, EmailAttachment } from '@mailroom/db';
import MailComposer from 'nodemailer/lib/mail-composer';

/**
 * The RFC 5322 message of an email, built once per attempt and shared by every recipient's
 * SMTP transaction (a 40 MB message to 50 recipients is held once). Bcc is not written.
 */
export function buildMessage(email: Email, attachments: readonly EmailAttachment[]): Promise<Buffer> {
  const composer = new MailComposer({
    from: email.from,
    to: email.to,
    cc: email.cc,
    replyTo: email.replyTo,
    subject: email.subject,
    ...(email.html !== null ? { html: email.html } : {}),
    ...(email.text !== null ? { text: email.text } : {}),
    headers: email.headers as Record<string, string>,
    messageId: `<${email.messageId}>`,
    date: new Date(),
    attachments: attachments.map((a) => ({
      filename: a.filename,
      content: Buffer.from(a.content.buffer, a.content.byteOffset, a.content.byteLength),
      ...(a.contentType ? { contentType: a.contentType } : {}),
      ...(a.contentId ? { cid: a.contentId } : {}),
    })),
  });
  return new Promise((resolve, reject) => {
    composer.compile().build((err, message) => (err ? reject(err) : resolve(message)));
  });
}
