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
  test('when neither is given, then the send is refused as missing html; an empty text is a body (a subject-only note), and accepted', () => {
    const missing = sendEmailSchema.safeParse(base);
    expect(missing.error?.issues.map((i) => [i.path.join('.'), i.message])).toEqual([['html', 'html or text is required']]);
    for (const body of [{ text: '' }, { html: '' }, { html: '<p>Hi</p>', text: '' }]) expect(sendEmailSchema.safeParse({ ...base, ...body }).success).toBe(true);
  });
});

describe('sendEmailSchema: attachments[].contentType', () => {
  test.each(['multipart/mixed', 'Multipart/Alternative', 'multipart/related'])('when it is %s, then the send is refused naming the field: an attachment is one part', (contentType) => {
    const parsed = send({ contentType });
    expect(parsed.error?.issues.map((i) => [i.path.join('.'), i.message])).toEqual([
      ['attachments.0.contentType', expect.stringMatching(/^cannot be multipart\/\*/)],
    ]);
  });

  test.each(['application/pdf', 'message/rfc822', 'text/calendar'])('when it is %s, then it is kept', (contentType) => {
    const parsed = send({ contentType });
    expect(parsed.success && parsed.data.attachments?.[0]?.contentType).toBe(contentType);
  });
});

describe('sendEmailSchema: addresses with an encoded word', () => {
  const base = { from: 'hello@acme.example', subject: 'Hi', text: 'Hi' };
  it.each(['=?utf-8?B?8J+QiPCfkIg=?=@example.org', 'a.=?utf-8?q?caf=C3=A9?=@example.org', 'Cat <=?UTF-8?b?8J+QiA==?=@example.org>'])(
    'when a recipient is %s (valid atext, but nodemailer decodes it in the envelope, RFC 2047 §5 forbids it), then the send is refused naming it',
    (to) => {
      const parsed = sendEmailSchema.safeParse({ ...base, to });
      expect(parsed.success).toBe(false);
      expect(parsed.error?.issues.map((i) => i.path.join('.'))).toEqual(['to']);
    },
  );

  test('when an encoded word is only in the display name, or the local part merely has = and ?, then it is accepted', () => {
    for (const to of ['=?utf-8?q?Caf=C3=A9?= <cafe@example.org>', 'a=b?c@example.org']) expect(sendEmailSchema.safeParse({ ...base, to }).success).toBe(true);
  });
});
