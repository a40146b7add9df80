import { DnsServer } from '../../../test/support/dns-server';
import { readReport } from '../src/feedback/read-report';
import { authenticateMessage, authenticationView, MAX_DKIM_SIGNATURES } from '../src/processing/authenticate';
import { MAX_ADDRESSES, parseMessage } from '../src/processing/parse-message';
import { MAX_PARSED_FIELD_BYTES, MAX_PARSED_FIELDS } from '../src/processing/read-mime';
import * as hostile from './hostile-messages';

// Each case is built at the size the brief names. A regression to super-linear time shows as
// jest's timeout (no timing assertions here): before these bounds, 100,000 addresses in a To
// kept mailauth busy for minutes and a 1.4 MB HTML of nested <div>s took html-to-text 14 s.

describe('hostile mail', () => {
  let dns: DnsServer;
  const auth = (raw: Buffer, mailFrom = 'm@evil.test') =>
    authenticateMessage(raw, { remoteAddress: '192.0.2.1', helo: 'h.evil.test', mailFrom, mta: 'mx.test', dnsServers: [dns.address], dnsBudgetMs: 2_000 });

  beforeAll(async () => {
    const zone: ConstructorParameters<typeof DnsServer>[0] = {
      zone: {
        // SPF that recurses into itself, and one whose includes fan out past the 10-lookup limit.
        'loop.test': { TXT: ['v=spf1 include:loop.test -all'] },
        'wide.test': { TXT: [`v=spf1 ${Array.from({ length: 12 }, (_, i) => `include:w${i}.wide.test`).join(' ')} -all`] },
        ...Object.fromEntries(Array.from({ length: 12 }, (_, i) => [`w${i}.wide.test`, { TXT: [`v=spf1 include:wide.test -all`] }])),
      },
    };
    dns = await new DnsServer(zone).start();
  });
  afterAll(() => dns.stop());

  describe.each(hostile.HOSTILE_CASES)('$name', ({ build, n }) => {
    const raw = build(n);
    test('when it is parsed, authenticated and read as a report, then each step resolves', async () => {
      const parsed = await parseMessage(raw);
      expect(parsed.headers.length).toBeLessThanOrEqual(2 * MAX_PARSED_FIELDS);
      expect(parsed.to.length).toBeLessThanOrEqual(MAX_ADDRESSES);
      const verdicts = await auth(raw);
      expect(verdicts.dkim.length).toBeLessThanOrEqual(MAX_DKIM_SIGNATURES);
      await expect(readReport(raw)).resolves.toHaveProperty('kind');
    });
  });

  test('when a To and Cc hold 100,000 addresses each, then the first 1,000 of each are kept and the rest of the message is read', async () => {
    const raw = hostile.manyAddresses(100_000);
    const parsed = await parseMessage(raw);
    expect(parsed.parseError).toBeNull();
    expect(parsed.to).toHaveLength(MAX_ADDRESSES);
    expect(parsed.to[0]).toEqual({ address: 'u0@acme.test', name: 'User 0' });
    expect(parsed.cc).toHaveLength(MAX_ADDRESSES);
    expect(parsed.from).toEqual({ address: 'mallory@evil.test', name: 'Mallory' });
    expect(parsed.subject).toBe('hostile');
    expect(parsed.text).toBe('body');
    // mailauth sees From (for DMARC) but not the 100,000-line To.
    const view = authenticationView(raw).toString('latin1');
    expect(view).toContain('From: Mallory <mallory@evil.test>');
    expect(view).not.toContain('u99999@acme.test');
    expect((await auth(raw)).dmarc.domain).toBe('evil.test');
  });

  test('when one header line is 10 MB, then it is cut and the other headers and the body are parsed', async () => {
    const parsed = await parseMessage(hostile.longHeaderLine(10 * 1024 * 1024));
    expect(parsed.parseError).toBeNull();
    expect(parsed.subject).toBe('hostile');
    expect(parsed.messageId).toBe('<hostile@evil.test>');
    expect(parsed.text).toBe('body');
    const long = parsed.headers.find((h) => h.name === 'X-Long');
    expect(long?.value.length).toBeGreaterThan(0);
    expect(long?.value.length).toBeLessThanOrEqual(MAX_PARSED_FIELD_BYTES);
  });

  test('when a message has 100,000 headers, then the first 1,000 are kept with the parsed fields', async () => {
    const parsed = await parseMessage(hostile.manyHeaders(100_000));
    expect(parsed.parseError).toBeNull();
    expect(parsed.headers).toHaveLength(MAX_PARSED_FIELDS);
    expect(parsed.headers[0]).toEqual({ name: 'From', value: 'Mallory <mallory@evil.test>' });
    expect(parsed.subject).toBe('hostile');
    expect(parsed.text).toBe('body');
  });

  test('when 10,000 Received headers come first, then the fields after them are still parsed', async () => {
    const parsed = await parseMessage(hostile.receivedChain(10_000));
    expect(parsed.parseError).toBeNull();
    expect(parsed.headers.filter((h) => h.name === 'Received')).toHaveLength(MAX_PARSED_FIELDS);
    expect(parsed.from?.address).toBe('mallory@evil.test');
    expect(parsed.subject).toBe('hostile');
    expect(parsed.date).toEqual(new Date('2024-01-01T00:00:00Z'));
  });

  test('when an HTML-only body is 5 MB of nested divs, then the HTML is kept exact and textReply comes from a bounded prefix', async () => {
    const raw = hostile.nestedDivs(500_000);
    const parsed = await parseMessage(raw);
    expect(parsed.text).toBeNull();
    expect(parsed.html).toBe(raw.subarray(raw.indexOf('<html>')).toString('latin1'));
    // Too deep for html-to-text within its 128 KiB: no reply text rather than a stalled process.
    expect(parsed.textReply).toBeNull();
  });

  test('when a message carries 100 DKIM signatures, then only the topmost 10 are checked', async () => {
    const verdicts = await auth(hostile.manyDkimSignatures(100));
    expect(verdicts.dkim.map((d) => d.domain)).toEqual(Array.from({ length: MAX_DKIM_SIGNATURES }, (_, i) => `d${i}.evil.test`));
  });

  test('when a message is within the bounds, then mailauth sees its exact bytes', () => {
    const raw = hostile.manyDkimSignatures(MAX_DKIM_SIGNATURES);
    expect(authenticationView(raw)).toBe(raw);
  });

  test('when an SPF record includes itself or fans out past ten lookups, then SPF is permerror and DNS is not flooded', async () => {
    const raw = hostile.manyHeaders(1);
    expect((await auth(raw, 'm@loop.test')).spf).toEqual({ result: 'permerror', domain: 'loop.test' });
    const before = dns.queries.length;
    // mailauth refuses a record of more than ten includes before following any (its verdict: temperror).
    expect((await auth(raw, 'm@wide.test')).spf).toEqual({ result: 'temperror', domain: 'wide.test' });
    // RFC 7208 §4.6.4: at most 10 DNS-querying terms (and DMARC's own lookups) per message.
    expect(dns.queries.length - before).toBeLessThanOrEqual(20);
  });

  test('when multiparts nest 1,000 deep or hold 50,000 parts, then the headers are kept with a processing error', async () => {
    for (const raw of [hostile.nestedMultiparts(1_000), hostile.manyParts(50_000), hostile.emptyBoundaries(10_000)]) {
      const parsed = await parseMessage(raw);
      expect(parsed.parseError).toMatch(/child nodes/);
      expect(parsed.subject).toBe('hostile');
      expect(parsed.from?.address).toBe('mallory@evil.test');
    }
  });

  test('when a DSN lists 10,000 recipients, then it is read as a DSN', async () => {
    const report = await readReport(hostile.dsnManyRecipients(10_000));
    expect(report.kind).toBe('dsn');
  });
});
