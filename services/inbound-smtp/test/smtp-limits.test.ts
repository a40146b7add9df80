import { createTransport } from 'nodemailer';
import { MAX_UNKNOWN_RECIPIENTS } from '../src/smtp/unknown-recipients';
import { expectCode, message, RawSmtp, seedProject, startTestMx, storedRows, type TestMx } from './smtp-support';

const MAX_BYTES = 64 * 1024;

describe('the MX under abuse and at its limits', () => {
  let t: TestMx;

  beforeAll(async () => {
    t = await startTestMx({
      label: 'smtplimits',
      env: { INBOUND_MAX_MESSAGE_BYTES: String(200 * 1024), SMTP_IDLE_TIMEOUT_SECONDS: '1', SMTP_MAX_CONNECTIONS_PER_IP: '3', SMTP_MAX_CONNECTIONS: '50' },
    });
    await seedProject(t.pool, ['support@acme.test', '*@many.test']);
  });
  afterAll(() => t.close());
  beforeEach(() => t.pool.query({ text: 'DELETE FROM received_emails' }));

  test('when MAIL FROM announces more than SIZE, then 552 5.3.4; when the data exceeds it, then 552 5.3.4 after the final dot and nothing is stored', async () => {
    const smtp = await RawSmtp.open(t.mx.port);
    await smtp.reply();
    await smtp.command('EHLO client.example.test');
    expect(await smtp.command(`MAIL FROM:<ann@example.test> SIZE=${300 * 1024}`)).toMatch(/^552 5\.3\.4 /);
    smtp.end();

    const transport = createTransport({ host: '127.0.0.1', port: t.mx.port, secure: false, ignoreTLS: true });
    const big = message('Too big', `${'x'.repeat(998)}\r\n`.repeat(250));
    await expect(transport.sendMail({ envelope: { from: 'ann@example.test', to: ['support@acme.test'] }, raw: big })).rejects.toMatchObject({ responseCode: 552 });
    const raw = await RawSmtp.open(t.mx.port);
    await raw.startMessage('ann@example.test', ['support@acme.test']);
    raw.write(`${'y'.repeat(998)}\r\n`.repeat(250));
    expect(await raw.command('.')).toMatch(/^552 5\.3\.4 /);
    // The connection stays usable.
    expect(await raw.command('NOOP')).toMatch(/^250 /);
    raw.end();
    expect(await storedRows(t.pool)).toHaveLength(0);
  });

  test('when a client gives a 101st recipient, then it gets 452 4.5.3 and the first 100 are delivered', async () => {
    const smtp = await RawSmtp.open(t.mx.port);
    await smtp.reply();
    await smtp.command('EHLO client.example.test');
    await smtp.command('MAIL FROM:<ann@example.test>');
    for (let i = 1; i <= 100; i++) expectCode(await smtp.command(`RCPT TO:<user${i}@many.test>`), 250);
    expect(await smtp.command('RCPT TO:<user101@many.test>')).toMatch(/^452 4\.5\.3 /);
    expectCode(await smtp.command('DATA'), 354);
    smtp.write(message('Hundred'));
    expectCode(await smtp.command('.'), 250);
    smtp.end();
    const [row] = await storedRows(t.pool);
    expect(row?.rcpt_to).toHaveLength(100);
  });

  test('when a client probes more unknown recipients than MAX_UNKNOWN_RECIPIENTS, then the next one gets 421 and the connection is closed; an accepted message starts the count over', async () => {
    const unknown = (from: number, n: number) => Array.from({ length: n }, (_, i) => `RCPT TO:<nobody${from + i}@nowhere.test>\r\n`).join('');
    const smtp = await RawSmtp.open(t.mx.port);
    await smtp.reply();
    await smtp.command('EHLO client.example.test');
    await smtp.command('MAIL FROM:<ann@example.test>');
    // Stale addresses up to the limit, then a message that is taken: the count starts over.
    smtp.write(unknown(0, MAX_UNKNOWN_RECIPIENTS - 1));
    for (let i = 1; i < MAX_UNKNOWN_RECIPIENTS; i++) expect(await smtp.reply()).toMatch(/^550 5\.1\.1 /);
    expectCode(await smtp.command('RCPT TO:<support@acme.test>'), 250);
    expectCode(await smtp.command('DATA'), 354);
    smtp.write(message('Despite stale addresses'));
    expectCode(await smtp.command('.'), 250);
    await smtp.command('MAIL FROM:<ann@example.test>');
    smtp.write(unknown(1000, MAX_UNKNOWN_RECIPIENTS + 5));
    for (let i = 1; i <= MAX_UNKNOWN_RECIPIENTS; i++) expect(await smtp.reply()).toMatch(/^550 5\.1\.1 /);
    expect(await smtp.reply()).toMatch(/^421 4\.7\.0 Too many unknown recipients/);
    // What was pipelined after it is not looked up or answered.
    expect(await smtp.reply()).toBe('');
    expect(await smtp.closedByServer()).toBe(true);
    expect(await storedRows(t.pool)).toHaveLength(1);
  });

  test('when DATA holds bare LFs with lone dots and smuggled commands, then only CRLF.CRLF ends it: one message, stored byte for byte', async () => {
    const smtp = await RawSmtp.open(t.mx.port);
    await smtp.startMessage('ann@example.test', ['support@acme.test']);
    const smuggled = 'Subject: smuggle\r\n\r\nhi\n.\nMAIL FROM:<evil@example.test>\nRCPT TO:<support@acme.test>\nDATA\n\r\n.\nforged\r\n\n.\r\n';
    const flood = '\n'.repeat(100_000);
    smtp.write(smuggled + flood + 'end\r\n.\r\n');
    expect(await smtp.reply()).toMatch(/^250 /);
    smtp.end();
    const rows = await storedRows(t.pool);
    expect(rows).toHaveLength(1);
    expect(rows[0]?.raw.toString('latin1')).toBe(`${smuggled}${flood}end\r\n`);
  });

  test('when the command stream is a bare-LF flood, then the server drops that client and still serves the next', async () => {
    const smtp = await RawSmtp.open(t.mx.port);
    await smtp.reply();
    smtp.write('\n'.repeat(10_000));
    expect(await smtp.closedByServer()).toBe(true);
    const next = await RawSmtp.open(t.mx.port);
    expect(await next.reply()).toMatch(/^220 /);
    next.end();
  });

  test('when a line of 64 KiB arrives, then it is accepted; when a 70 KiB line arrives, then 554 5.6.0 and nothing is stored', async () => {
    const fits = await RawSmtp.open(t.mx.port);
    await fits.startMessage('ann@example.test', ['support@acme.test']);
    fits.write(`Subject: long\r\n\r\n${'a'.repeat(MAX_BYTES)}\r\n.\r\n`);
    expect(await fits.reply()).toMatch(/^250 /);
    fits.end();
    expect(await storedRows(t.pool)).toHaveLength(1);

    const tooLong = await RawSmtp.open(t.mx.port);
    await tooLong.startMessage('ann@example.test', ['support@acme.test']);
    tooLong.write(`Subject: longer\r\n\r\n${'b'.repeat(70 * 1024)}\r\n.\r\n`);
    expect(await tooLong.reply()).toMatch(/^554 5\.6\.0 .*line longer than 65536 bytes/);
    tooLong.end();
    expect(await storedRows(t.pool)).toHaveLength(1);
  });

  test('when a client never sends DATA, then it gets 421 after the idle timeout and is disconnected', async () => {
    const smtp = await RawSmtp.open(t.mx.port);
    await smtp.reply();
    await smtp.command('EHLO client.example.test');
    await smtp.command('MAIL FROM:<ann@example.test>');
    await smtp.command('RCPT TO:<support@acme.test>');
    expect(await smtp.reply(4_000)).toMatch(/^421 4\.4\.2 /);
    expect(await smtp.closedByServer()).toBe(true);
    expect(await storedRows(t.pool)).toHaveLength(0);
  });

  test('when a client disconnects mid-DATA, then nothing is stored and the next connection is served', async () => {
    const smtp = await RawSmtp.open(t.mx.port);
    await smtp.startMessage('ann@example.test', ['support@acme.test']);
    smtp.write('Subject: cut\r\n\r\nhalf a mess');
    await new Promise((resolve) => setTimeout(resolve, 100));
    smtp.end();
    await new Promise((resolve) => setTimeout(resolve, 200));
    const next = await RawSmtp.open(t.mx.port);
    await next.startMessage('ann@example.test', ['support@acme.test']);
    next.write(message('After the cut'));
    expect(await next.command('.')).toMatch(/^250 /);
    next.end();
    const rows = await storedRows(t.pool);
    expect(rows).toHaveLength(1);
    expect(rows[0]?.raw.toString()).toContain('Subject: After the cut');
  });

  test('when one IP opens more than SMTP_MAX_CONNECTIONS_PER_IP connections, then the extra one gets 421 4.7.0 at connect; after one closes, it may connect again', async () => {
    const open = await Promise.all([1, 2, 3].map(() => RawSmtp.open(t.mx.port)));
    for (const c of open) expect(await c.reply()).toMatch(/^220 /);
    const extra = await RawSmtp.open(t.mx.port);
    expect(await extra.reply()).toMatch(/^421 4\.7\.0 /);
    expect(await extra.closedByServer()).toBe(true);
    open[0]?.end();
    await new Promise((resolve) => setTimeout(resolve, 200));
    const again = await RawSmtp.open(t.mx.port);
    expect(await again.reply()).toMatch(/^220 /);
    for (const c of [...open, again]) c.end();
  });
});

describe('the MX at its total connection limit', () => {
  let t: TestMx;
  beforeAll(async () => {
    t = await startTestMx({ label: 'smtptotal', env: { SMTP_MAX_CONNECTIONS: '2', SMTP_MAX_CONNECTIONS_PER_IP: '10' } });
  });
  afterAll(() => t.close());

  test('when SMTP_MAX_CONNECTIONS are open, then the next one gets 421 and is closed; the others keep working', async () => {
    const open = await Promise.all([1, 2].map(() => RawSmtp.open(t.mx.port)));
    for (const c of open) expect(await c.reply()).toMatch(/^220 /);
    const extra = await RawSmtp.open(t.mx.port);
    expect(await extra.reply()).toMatch(/^421 /);
    expect(await extra.closedByServer()).toBe(true);
    expect(await open[0]?.command('NOOP')).toMatch(/^250 /);
    for (const c of open) c.end();
  });
});
