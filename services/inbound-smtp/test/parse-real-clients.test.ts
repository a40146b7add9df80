import { join } from 'node:path';
import { corpusMessages, type ExpectedReceived, expectStoredAs, type ProcessingRig, readReceived, startProcessingRig } from './processing-support';

const CORPUS = join(__dirname, 'parse-corpus-clients');

/** Mail shaped as real clients and RFC examples write it, and what must be stored for it. */
const EXPECTED: Record<string, ExpectedReceived> = {
  // A forward as an inline message/rfc822: one attachment, nothing of it in this message's text or html or attachments.
  '01-forward-inline-rfc822': {
    text: 'See the message below.',
    html: null,
    textReply: 'See the message below.',
    attachments: [{ filename: 'Lunch.eml', contentType: 'message/rfc822', size: 320, contentId: null, disposition: 'inline' }],
  },
  // RFC 5322 Appendix A.5: comments are not part of addresses or names; a bare address keeps its comment as the name.
  '02-rfc5322-a5-comments': {
    from: { address: 'pete@silly.test', name: 'Pete' },
    to: [
      { address: 'c@public.example', name: 'Chris Jones' },
      { address: 'joe@example.org', name: null },
      { address: 'jdoe@one.test', name: 'John' },
    ],
    cc: [],
    replyTo: [{ address: 'ada@sender.test', name: 'Ada Lovelace (work)' }],
    messageId: '<testabcd.1234@silly.test>',
    date: '1969-02-14T03:02:00.000Z',
  },
  '03-outlook-de-reply': { textReply: 'Passt, bis morgen.' },
  '04-outlook-web-html-reply': { text: null, textReply: 'Sounds good.' },
  '05-gmail-ja-reply': { textReply: '了解です。' },
  '06-gmail-de-mobile-reply': { textReply: 'Gerne!' },
  '07-apple-mail-ja-reply': { textReply: 'はい、大丈夫です。' },
  // Text that ends with a colon but names no address or time is the reply's own.
  '08-inline-reply-kept': { textReply: 'Two answers:\nYes.\n\nAnd about your last point:' },
};

describe('parsing mail as real clients write it', () => {
  let rig: ProcessingRig;
  let ids: Map<string, string>;

  beforeAll(async () => {
    rig = await startProcessingRig('parseclients');
    ids = await rig.process(corpusMessages(CORPUS));
  }, 60_000);
  afterAll(() => rig.close());

  test('every corpus message has expectations', () => {
    expect([...ids.keys()].sort()).toEqual(Object.keys(EXPECTED).sort());
  });

  test.each(Object.entries(EXPECTED))('when %s is received, then it is stored parsed field by field', async (name, expected) => {
    expectStoredAs(await readReceived(rig.pool, ids.get(name) as string), expected);
  });

  test('when a forward is an inline message/rfc822, then the attachment holds the forwarded message exactly', async () => {
    const stored = await readReceived(rig.pool, ids.get('01-forward-inline-rfc822') as string);
    const content = stored.attachments[0]?.content.toString('utf8') ?? '';
    expect(content.startsWith('From: Bob <bob@acme.test>\r\n')).toBe(true);
    expect(content).toContain('<p>INNER HTML</p>\r\n');
    expect(content).toContain('%PDF-menu');
  });

  test('when addresses carry comments, then email.received names the addresses without them', async () => {
    const { rows } = await rig.pool.query<{ data: { from: unknown; to: unknown } }>({
      text: `SELECT data FROM email_events WHERE received_email_id = $1 AND type = 'email.received'`,
      values: [ids.get('02-rfc5322-a5-comments')],
    });
    expect(rows).toHaveLength(1);
    expect(JSON.stringify(rows[0]?.data)).toContain('pete@silly.test');
    expect(JSON.stringify(rows[0]?.data)).not.toContain('account)');
  });
});
