import { join } from 'node:path';
import { corpusSuite, type ExpectedReceived, readReceived } from './processing-support';

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
  const suite = corpusSuite('parseclients', CORPUS, EXPECTED);

  test('when a forward is an inline message/rfc822, then the attachment holds the forwarded message exactly', async () => {
    const stored = await readReceived(suite.rig().pool, suite.id('01-forward-inline-rfc822'));
    const content = stored.attachments[0]?.content.toString('utf8') ?? '';
    expect(content.startsWith('From: Bob <bob@acme.test>\r\n')).toBe(true);
    expect(content).toContain('<p>INNER HTML</p>\r\n');
    expect(content).toContain('%PDF-menu');
  });

  test('when addresses carry comments, then email.received names the addresses without them', async () => {
    const { rows } = await suite.rig().pool.query<{ data: { from: unknown; to: unknown } }>({
      text: `SELECT data FROM email_events WHERE received_email_id = $1 AND type = 'email.received'`,
      values: [suite.id('02-rfc5322-a5-comments')],
    });
    expect(rows).toHaveLength(1);
    expect(JSON.stringify(rows[0]?.data)).toContain('pete@silly.test');
    expect(JSON.stringify(rows[0]?.data)).not.toContain('account)');
  });
});
