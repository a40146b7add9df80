import { sendEmailSchema } from './send-schema';

const send = (attachment: Record<string, unknown>) =>
  sendEmailSchema.safeParse({ from: 'hello@acme.example', to: 'alice@example.com', subject: 'Logo', html: '<img src="cid:logo">', attachments: [{ filename: 'logo.png', content: 'eA==', ...attachment }] });

describe('sendEmailSchema: attachments[].contentId', () => {
  it.each(['logo@acme.example', 'logo', 'part1.06090408.01060107@acme.example', "a!#$%&'*+/=?^_`{|}~-b"])('when it is printable ASCII (%s), then it is accepted as given', (contentId) => {
    const parsed = send({ contentId });
    expect(parsed.success && parsed.data.attachments?.[0]?.contentId).toBe(contentId);
  });

  it.each([
    ['non-ASCII (it would be raw 8-bit bytes in the Content-ID header)', 'lögo@acme.example'],
    ['an emoji', '🖼@acme.example'],
    ['a control character (nodemailer drops it, so the cid: reference no longer matches)', 'lo\u0001go@acme.example'],
    ['DEL', 'logo\u007f@acme.example'],
    ['a space', 'my logo'],
    ['angle brackets', '<logo@acme.example>'],
  ])('when it holds %s, then the send is refused naming the field', (_what, contentId) => {
    const parsed = send({ contentId });
    expect(parsed.success).toBe(false);
    expect(parsed.error?.issues.map((i) => i.path.join('.'))).toEqual(['attachments.0.contentId']);
  });
});

describe('sendEmailSchema: html and text', () => {
  const base = { from: 'hello@acme.example', to: 'alice@example.com', subject: 'Hi' };
  it.each([
    ['text empty', { text: '' }, 'text'],
    ['html empty', { html: '' }, 'html'],
    ['both empty', { html: '', text: '' }, 'html'],
  ])('when %s and nothing is attached, then the send is refused naming the field', (_what, body, field) => {
    const parsed = sendEmailSchema.safeParse({ ...base, ...body });
    expect(parsed.success).toBe(false);
    expect(parsed.error?.issues.map((i) => [i.path.join('.'), i.message])).toEqual([[field, 'html or text must not be empty (unless the email has attachments)']]);
  });

  it.each([
    ['text', { text: 'Hello' }],
    ['html beside an empty text', { html: '<p>Hi</p>', text: '' }],
    ['an empty text with an attachment', { text: '', attachments: [{ filename: 'a.txt', content: 'eA==' }] }],
  ])('when it has %s, then it is accepted', (_what, body) => {
    expect(sendEmailSchema.safeParse({ ...base, ...body }).success).toBe(true);
  });
});
