import { parseMessage } from './parse-message';

describe('parseMessage', () => {
  test.each([
    ['empty', ''],
    ['a lone line end', '\r\n'],
    ['a body without a header section', '\r\nHello.\r\n'],
  ])('when the message is %s, then it has no headers (not one without a name)', async (_what, raw) => {
    const parsed = await parseMessage(Buffer.from(raw));
    expect(parsed.headers).toEqual([]);
    expect(parsed.subject).toBeNull();
    expect(parsed.parseError).toBeNull();
  });

  test('when a header is empty or a line has no colon, then each is still a header, in order', async () => {
    const parsed = await parseMessage(Buffer.from('X-Empty:\r\nnot a header\r\nSubject: s\r\n\r\nbody\r\n'));
    expect(parsed.headers).toEqual([
      { name: 'X-Empty', value: '' },
      { name: 'not a header', value: '' },
      { name: 'Subject', value: 's' },
    ]);
  });

  test.each([
    ['no header section at all', 'just a body\r\nline 2\r\n', [], 'just a body\nline 2\n'],
    ['no header section, bare LF', 'just a body\nline 2\n', [], 'just a body\nline 2\n'],
    ['fields, then text without the empty line', 'Subject: s\r\nhello world\r\nmore\r\n', [{ name: 'Subject', value: 's' }], 'hello world\nmore\n'],
  ])('when a message has %s, then its body starts at the first line that is no header field (as Python and Postfix read it)', async (_what, raw, headers, text) => {
    const parsed = await parseMessage(Buffer.from(raw));
    expect(parsed.headers).toEqual(headers);
    expect(parsed.text).toBe(text);
    expect(parsed.textReply).toBe(text.trim());
    expect(parsed.parseError).toBeNull();
  });

  test.each([
    ['a name and the null address', 'MAILER DAEMON <>', { address: '', name: 'MAILER DAEMON' }],
    ['a bare local user, as old mailers wrote one', 'foo', { address: '', name: 'foo' }],
    ['only the null address', '<>', null],
  ])('when From is %s, then the name is kept with the address ""', async (_what, from, expected) => {
    const parsed = await parseMessage(Buffer.from(`From: ${from}\r\nTo: Ann <ann@x.example>, Bob\r\nSubject: s\r\n\r\nbody\r\n`));
    expect(parsed.from).toEqual(expected);
    expect(parsed.to).toEqual([
      { address: 'ann@x.example', name: 'Ann' },
      { address: '', name: 'Bob' },
    ]);
  });

  test('when a field has white space before its colon (RFC 5322 §4.5), then it is still a field, not the start of the body', async () => {
    const parsed = await parseMessage(Buffer.from('Subject : spaced\r\nX-Tab\t: tabbed\r\n\r\nbody\r\n'));
    expect(parsed.subject).toBe('spaced');
    expect(parsed.headers.map((h) => h.name)).toEqual(['Subject', 'X-Tab']);
    expect(parsed.text).toBe('body\n');
  });

  test('when From or Reply-To is repeated, then the first counts (the one DMARC judges), and To headers still add up', async () => {
    const raw = 'From: Attacker <attacker@evil.example>\r\nTo: support@acme.test\r\nReply-To: first@evil.example\r\nFrom: ceo@bank.example\r\nReply-To: second@bank.example\r\nTo: sales@acme.test\r\nSubject: s\r\n\r\nx\r\n';
    const parsed = await parseMessage(Buffer.from(raw));
    expect(parsed.from).toEqual({ address: 'attacker@evil.example', name: 'Attacker' });
    expect(parsed.replyTo).toEqual([{ address: 'first@evil.example', name: null }]);
    expect(parsed.to.map((a) => a.address)).toEqual(['support@acme.test', 'sales@acme.test']);
    // The headers list keeps both, in order.
    expect(parsed.headers.filter((h) => h.name === 'From').map((h) => h.value)).toEqual(['Attacker <attacker@evil.example>', 'ceo@bank.example']);
    // The same when the second is read again for a comment.
    const commented = await parseMessage(Buffer.from('From: a@first.example\r\nFrom: b@second.example (the boss)\r\n\r\nx\r\n'));
    expect(commented.from).toEqual({ address: 'a@first.example', name: null });
  });

  test('when the message starts with a UTF-8 byte order mark, then its first header is read all the same', async () => {
    const raw = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('From: Ada <ada@example.com>\r\nSubject: s\r\n\r\nbody\r\n')]);
    const parsed = await parseMessage(raw);
    expect(parsed.from).toEqual({ address: 'ada@example.com', name: 'Ada' });
    expect(parsed.headers[0]).toEqual({ name: 'From', value: 'Ada <ada@example.com>' });
    expect(parsed.text).toBe('body\n');
  });

  test('when a text file is attached inline with a name after the body (Apple Mail), then it is an attachment, not text', async () => {
    const raw = Buffer.from(
      'Content-Type: multipart/mixed; boundary=b\r\n\r\n--b\r\nContent-Type: text/plain\r\n\r\nNotes attached.\r\n' +
        '--b\r\nContent-Disposition: inline; filename=notes.txt\r\nContent-Type: text/plain; name="notes.txt"\r\n\r\nline one\r\n' +
        '--b\r\nContent-Type: text/html; name="page.html"\r\n\r\n<p>page</p>\r\n--b--\r\n',
    );
    const parsed = await parseMessage(raw);
    expect(parsed.text).toBe('Notes attached.');
    expect(parsed.html).toBeNull();
    expect(parsed.attachments.map((a) => [a.filename, a.contentType, a.disposition, a.content.toString()])).toEqual([
      ['notes.txt', 'text/plain', 'inline', 'line one'],
      ['page.html', 'text/html', null, '<p>page</p>'],
    ]);
  });

  test('when a named text part is the first of its multipart or an alternative, then it is still the text', async () => {
    const raw = Buffer.from(
      'Content-Type: multipart/mixed; boundary=b\r\n\r\n--b\r\nContent-Type: text/plain; name="body.txt"\r\n\r\nfirst\r\n' +
        '--b\r\nContent-Type: multipart/alternative; boundary=c\r\n\r\n--c\r\nContent-Type: text/plain; name="alt.txt"\r\n\r\nplain\r\n' +
        '--c\r\nContent-Type: text/html; name="alt.html"\r\n\r\n<p>html</p>\r\n--c--\r\n--b--\r\n',
    );
    const parsed = await parseMessage(raw);
    expect(parsed.text).toBe('first\nplain');
    expect(parsed.html).toBe('<p>html</p>');
    expect(parsed.attachments).toEqual([]);
  });

  test('when a text part sits beside an alternative (a mailing list footer), then html is the HTML part as sent', async () => {
    const raw = Buffer.from(
      'Content-Type: multipart/mixed; boundary=b\r\n\r\n--b\r\nContent-Type: multipart/alternative; boundary=c\r\n\r\n' +
        '--c\r\nContent-Type: text/plain\r\n\r\nnews\r\n--c\r\nContent-Type: text/html\r\n\r\n<p>news</p>\r\n--c--\r\n' +
        '--b\r\nContent-Type: text/plain\r\nContent-Disposition: inline\r\n\r\nfooter\r\n--b\r\nContent-Type: text/html\r\n\r\n<p>more</p>\r\n--b--\r\n',
    );
    const parsed = await parseMessage(raw);
    expect(parsed.html).toBe('<p>news</p><br/>\n<p>more</p>');
    expect(parsed.text).toBe('news\nfooter');
  });

  test.each([
    ['text/plain', 'text/plain; format=flowed', 'Same content', 'Same content'],
    ['text/plain', 'text/plain', 'first version', 'last version'],
  ])('when an alternative has two %s versions, then text is the last (RFC 2046 §5.1.4), not both joined', async (first, last, one, two) => {
    const raw = `Content-Type: multipart/alternative; boundary=a\r\n\r\n--a\r\nContent-Type: ${first}\r\n\r\n${one}\r\n--a\r\nContent-Type: ${last}\r\n\r\n${two}\r\n--a--\r\n`;
    const parsed = await parseMessage(Buffer.from(raw));
    expect(parsed.text).toBe(two);
    expect(parsed.attachments).toEqual([]);
  });

  test('when an alternative has two HTML versions, then html is the last, and text still comes from the version that has it', async () => {
    const raw =
      'Content-Type: multipart/alternative; boundary=a\r\n\r\n--a\r\nContent-Type: text/plain\r\n\r\nplain\r\n' +
      '--a\r\nContent-Type: text/html\r\n\r\n<p>v1</p>\r\n--a\r\nContent-Type: multipart/related; boundary=r\r\n\r\n' +
      '--r\r\nContent-Type: text/html\r\n\r\n<p>v2</p>\r\n--r\r\nContent-Type: image/gif\r\nContent-ID: <g@x>\r\n\r\nGIF89a\r\n--r--\r\n--a--\r\n';
    const parsed = await parseMessage(Buffer.from(raw));
    expect(parsed.html).toBe('<p>v2</p>');
    expect(parsed.text).toBe('plain');
    expect(parsed.attachments.map((a) => a.contentId)).toEqual(['g@x']);
  });

  test('when a version of an alternative is a multipart/mixed of several texts, then those are joined, as in any multipart/mixed', async () => {
    const raw =
      'Content-Type: multipart/alternative; boundary=a\r\n\r\n--a\r\nContent-Type: text/plain\r\n\r\nshort\r\n' +
      '--a\r\nContent-Type: multipart/mixed; boundary=m\r\n\r\n--m\r\nContent-Type: text/plain\r\n\r\none\r\n' +
      '--m\r\nContent-Type: text/plain\r\nContent-Disposition: inline\r\n\r\ntwo\r\n--m--\r\n--a--\r\n';
    const parsed = await parseMessage(Buffer.from(raw));
    expect(parsed.text).toBe('one\ntwo');
  });

  test('when the richer version of an alternative holds a text fragment beside its HTML (a footer), then text is still the plain version', async () => {
    const raw =
      'Content-Type: multipart/alternative; boundary=a\r\n\r\n--a\r\nContent-Type: text/plain\r\n\r\nplain\r\n' +
      '--a\r\nContent-Type: multipart/mixed; boundary=m\r\n\r\n--m\r\nContent-Type: text/html\r\n\r\n<p>html</p>\r\n' +
      '--m\r\nContent-Type: image/png\r\n\r\nimage\r\n--m\r\nContent-Type: text/plain\r\n\r\nfooter\r\n--m--\r\n--a--\r\n';
    const parsed = await parseMessage(Buffer.from(raw));
    expect(parsed.text).toBe('plain');
    expect(parsed.html).toBe('<p>html</p>');
    expect(parsed.attachments.map((a) => a.contentType)).toEqual(['image/png']);
  });

  test('when no version of an alternative is text alone, then the text comes from the last that has any', async () => {
    const raw =
      'Content-Type: multipart/alternative; boundary=a\r\n\r\n--a\r\nContent-Type: multipart/mixed; boundary=m\r\n\r\n' +
      '--m\r\nContent-Type: text/html\r\n\r\n<p>html</p>\r\n--m\r\nContent-Type: text/plain\r\n\r\nfooter\r\n--m--\r\n--a--\r\n';
    const parsed = await parseMessage(Buffer.from(raw));
    expect(parsed.text).toBe('footer');
  });

  test('when an address has an A-label domain, then it is kept as written, not shown in Unicode (a homograph of apple.com here)', async () => {
    const raw =
      'From: plain@xn--80ak6aa92e.com\r\nTo: "Team" <team@xn--80ak6aa92e.com>, Grp: g@xn--bcher-kva.example;\r\n' +
      'Cc: c@mail.xn--80ak6aa92e.com, d@xn--80ak6aa92e.com\r\nReply-To: r@xn--80ak6aa92e.com (comment)\r\nSubject: idn\r\n\r\nx\r\n';
    const parsed = await parseMessage(Buffer.from(raw));
    expect(parsed.from).toEqual({ address: 'plain@xn--80ak6aa92e.com', name: null });
    expect(parsed.to).toEqual([
      { address: 'team@xn--80ak6aa92e.com', name: 'Team' },
      { address: 'g@xn--bcher-kva.example', name: null },
    ]);
    expect(parsed.cc).toEqual([
      { address: 'c@mail.xn--80ak6aa92e.com', name: null },
      { address: 'd@xn--80ak6aa92e.com', name: null },
    ]);
    expect(parsed.replyTo).toEqual([{ address: 'r@xn--80ak6aa92e.com', name: 'comment' }]);
  });

  test('when an address has a U-label domain (SMTPUTF8), then it stays Unicode, as written', async () => {
    const parsed = await parseMessage(Buffer.from('From: Jürgen <jürgen@bücher.example>\r\nTo: plain@аррӏе.com\r\n\r\nx\r\n'));
    expect(parsed.from).toEqual({ address: 'jürgen@bücher.example', name: 'Jürgen' });
    expect(parsed.to).toEqual([{ address: 'plain@аррӏе.com', name: null }]);
  });
});
