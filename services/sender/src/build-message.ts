import MailComposer from 'nodemailer/lib/mail-composer';
import type { OutgoingAttachment, OutgoingEmail } from './send-store';

/**
 * The RFC 5322 message of an email, built once per attempt and shared by every recipient's
 * SMTP transaction (a 40 MB message to 50 recipients is held once). Bcc is not written.
 */
export function buildMessage(email: OutgoingEmail, attachments: readonly OutgoingAttachment[]): Promise<Buffer> {
  const composer = new MailComposer({
    from: email.from,
    to: email.to,
    cc: email.cc,
    replyTo: email.replyTo,
    subject: email.subject,
    ...(email.html !== null ? { html: email.html } : {}),
    ...(email.text !== null ? { text: email.text } : {}),
    headers: email.headers,
    messageId: `<${email.messageId}>`,
    date: new Date(),
    attachments: attachments.map((a) => ({
      filename: a.filename,
      content: a.content,
      ...(a.contentType ? { contentType: a.contentType } : {}),
      ...(a.contentId ? { cid: a.contentId } : {}),
    })),
  });
  return new Promise((resolve, reject) => {
    composer.compile().build((err, message) => (err ? reject(err) : resolve(message)));
  });
}
