import { deriveKey, Verp } from '@mailroom/core';
import { createTransport } from 'nodemailer';
import { TEST_SECRET_KEY } from '../../../test/support/gateway';
import { message, RawSmtp, seedProject, seedSentRecipient, startTestMx, storedRows, swaks, type TestMx, until } from './smtp-support';

function transportTo(port: number) {
  return createTransport({ host: '127.0.0.1', port, secure: false, ignoreTLS: true, name: 'client.example.test' });
}

async function rcptReply(port: number, to: string): Promise<string> {
  const smtp = await RawSmtp.open(port);
  await smtp.reply();
  await smtp.command('EHLO client.example.test');
  // A UTF-8 address needs a transaction begun with SMTPUTF8 (RFC 6531 §3.4; else 553 5.6.7).
  await smtp.command(`MAIL FROM:<ann@example.test>${/\P{ASCII}/u.test(to) ? ' SMTPUTF8' : ''}`);
  const reply = await smtp.command(`RCPT TO:<${to}>`);
  smtp.end();
  return reply;
}


describe('the MX accepting mail', () => {
  let t: TestMx;
  let acme: { projectId: string; routes: Record<string, string> };
  let other: { projectId: string; routes: Record<string, string> };

  beforeAll(async () => {
    t = await startTestMx({ label: 'smtpaccept' });
    acme = await seedProject(t.pool, ['support@acme.test', '*@wild.acme.test', 'ünïcødé@acme.test']);
    other = await seedProject(t.pool, ['sales@other.test']);
  });
  afterAll(() => t.close());
  beforeEach(() => t.pool.query({ text: 'DELETE FROM received_emails' }));

  test('when nodemailer delivers to a route, then 250 comes only with the row stored: exact raw bytes and the envelope', async () => {
    const raw = message('Nodemailer', 'Line one.\r\n.leading dot\r\n..two dots\r\n');
    const info = await transportTo(t.mx.port).sendMail({ envelope: { from: 'ann@example.test', to: ['Support@ACME.test'] }, raw });
    expect(info.response).toMatch(/^250 2\.6\.0 Ok: queued as inb_[0-9A-Z]{26}$/);
    const rows = await storedRows(t.pool);
    expect(rows).toHaveLength(1);
    const [row] = rows;
    expect(info.response).toContain(row?.id);
    expect(row).toMatchObject({
      project_id: acme.projectId,
      kind: 'route',
      route_ids: [acme.routes['support@acme.test']],
      feedback_recipient_id: null,
      mail_from: 'ann@example.test',
      // smtp-server lower-cases the domain; the local part stays as sent.
      rcpt_to: ['Support@acme.test'],
      remote_address: '127.0.0.1',
      helo: 'client.example.test',
      size: raw.length,
      processed_at: null,
    });
    expect(row?.raw.equals(raw)).toBe(true);
  });

  test('when swaks delivers with the null sender to a +tag address and a wildcard route, then one row holds both recipients and routes in RCPT order', async () => {
    const { code, output } = await swaks([
      '--server', `127.0.0.1:${t.mx.port}`, '--helo', 'swaks.example.test', '--from', '<>', '--to', 'support+tickets@acme.test,anyone@wild.acme.test',
      '--header', 'Subject: from swaks', '--body', 'Sent by swaks.', '--silent', '1',
    ]);
    expect({ code, output }).toMatchObject({ code: 0 });
    const [row, ...rest] = await storedRows(t.pool);
    expect(rest).toHaveLength(0);
    expect(row).toMatchObject({
      project_id: acme.projectId,
      route_ids: [acme.routes['support@acme.test'], acme.routes['*@wild.acme.test']],
      mail_from: '',
      rcpt_to: ['support+tickets@acme.test', 'anyone@wild.acme.test'],
      helo: 'swaks.example.test',
    });
    expect(row?.raw.toString()).toContain('Subject: from swaks\r\n');
    expect(row?.raw.toString()).toContain('Sent by swaks.');
  });

  test('when a recipient matches no route, then RCPT gets 550 5.1.1; an open relay attempt too', async () => {
    expect(await rcptReply(t.mx.port, 'nobody@acme.test')).toMatch(/^550 5\.1\.1 /);
    expect(await rcptReply(t.mx.port, 'victim@gmail.com')).toMatch(/^550 5\.1\.1 /);
    expect(await rcptReply(t.mx.port, 'support@acme.test@evil.test')).toMatch(/^5\d\d /);
  });

  test('when a route was found for one spelling of an address, then other spellings still match it, and a near miss is still refused', async () => {
    expect(await rcptReply(t.mx.port, 'support@acme.test')).toMatch(/^250/);
    expect(await rcptReply(t.mx.port, 'support@acme.test')).toMatch(/^250/);
    expect(await rcptReply(t.mx.port, 'Support+news@ACME.test')).toMatch(/^250/);
    expect(await rcptReply(t.mx.port, 'SUPPORT@acme.test')).toMatch(/^250/);
    expect(await rcptReply(t.mx.port, 'supportx@acme.test')).toMatch(/^550 5\.1\.1/);
  });

  test('when a reply-by-mail address carries a token past RFC 5321’s 64-octet local part, then its route still takes it, at a wildcard route too', async () => {
    const token = 'Ab3'.repeat(40);
    expect(await rcptReply(t.mx.port, `support+${token}@acme.test`)).toMatch(/^250/);
    expect(await rcptReply(t.mx.port, `reply-${token}@wild.acme.test`)).toMatch(/^250/);
    expect(await rcptReply(t.mx.port, `supportx${token}@acme.test`)).toMatch(/^550 5\.1\.1/);
  });

  test('when an internationalized address arrives over SMTPUTF8, then a wildcard route and an exact UTF-8 route both take it; a quoted local part finds its unquoted route', async () => {
    const raw = message('Internationalized');
    const info = await transportTo(t.mx.port).sendMail({ envelope: { from: 'ann@example.test', to: ['пользователь@wild.acme.test', 'Ünïcødé@acme.test'] }, raw });
    expect(info.accepted).toHaveLength(2);
    const [row] = await storedRows(t.pool);
    expect(row).toMatchObject({
      project_id: acme.projectId,
      route_ids: [acme.routes['*@wild.acme.test'], acme.routes['ünïcødé@acme.test']],
      rcpt_to: ['пользователь@wild.acme.test', 'Ünïcødé@acme.test'],
    });
    expect(await rcptReply(t.mx.port, '"Support"@acme.test')).toMatch(/^250/);
    // Quotes that are only syntax change nothing: this is support+x@acme.test, a +tag of the route.
    expect(await rcptReply(t.mx.port, '"support+x"@acme.test')).toMatch(/^250/);
    expect(await rcptReply(t.mx.port, 'ünïcødéx@acme.test')).toMatch(/^550 5\.1\.1/);
  });

  test('when mail is for postmaster (RFC 5321 §4.5.1), then it is accepted at every routed domain and at the MX’s own, and refused elsewhere', async () => {
    await transportTo(t.mx.port).sendMail({ envelope: { from: 'ann@example.test', to: ['PostMaster@acme.test'] }, raw: message('Postmaster') });
    const [routed] = await storedRows(t.pool);
    // acme.test has exact routes only: the oldest takes postmaster.
    expect(routed).toMatchObject({ project_id: acme.projectId, kind: 'route', route_ids: [acme.routes['support@acme.test']], rcpt_to: ['PostMaster@acme.test'] });
    expect(await rcptReply(t.mx.port, 'postmaster')).toMatch(/^250/);
    expect(await rcptReply(t.mx.port, 'postmaster@bounces.mailroom.test')).toMatch(/^250/);
    expect(await rcptReply(t.mx.port, 'postmaster@unrouted.test')).toMatch(/^550 5\.1\.1/);
    expect(await rcptReply(t.mx.port, 'postmasterx@acme.test')).toMatch(/^550 5\.1\.1/);
    await t.pool.query({ text: 'DELETE FROM received_emails' });
    await transportTo(t.mx.port).sendMail({ envelope: { from: 'ann@example.test', to: ['postmaster'] }, raw: message('Bare postmaster') });
    expect((await storedRows(t.pool)).map((r) => ({ project: r.project_id, kind: r.kind, rcpt: r.rcpt_to }))).toEqual([{ project: null, kind: 'feedback', rcpt: ['postmaster'] }]);
  });

  test('when a VERP address has a wrong MAC or names no recipient, then 550; with the right MAC, then it is stored as feedback in the sent email’s project', async () => {
    const recipientId = await seedSentRecipient(t.pool, acme.projectId);
    const verp = new Verp(deriveKey(TEST_SECRET_KEY, 'verp'), 'bounces.mailroom.test');
    const good = verp.returnPath(recipientId);
    const forged = good.replace(/-[0-9a-f]{12}@/, '-000000000000@');
    expect(await rcptReply(t.mx.port, forged)).toMatch(/^550 5\.1\.1 /);
    const unknown = verp.returnPath('rcpt_01ARZ3NDEKTSV4RRFFQ69G5FAV');
    expect(await rcptReply(t.mx.port, unknown)).toMatch(/^550 5\.1\.1 /);
    const wrongDomain = verp.returnPath(recipientId, 'elsewhere.test');
    expect(await rcptReply(t.mx.port, wrongDomain)).toMatch(/^550 5\.1\.1 /);

    await transportTo(t.mx.port).sendMail({ envelope: { from: '', to: [good, 'fbl@bounces.mailroom.test'] }, raw: message('Bounce') });
    const rows = await storedRows(t.pool);
    expect(rows.map(({ project_id, kind, route_ids, feedback_recipient_id, rcpt_to }) => ({ project_id, kind, route_ids, feedback_recipient_id, rcpt_to }))).toEqual([
      { project_id: acme.projectId, kind: 'feedback', route_ids: [], feedback_recipient_id: recipientId, rcpt_to: [good] },
      { project_id: null, kind: 'feedback', route_ids: [], feedback_recipient_id: null, rcpt_to: ['fbl@bounces.mailroom.test'] },
    ]);
    expect(rows[0]?.raw.equals(rows[1]?.raw as Buffer)).toBe(true);
  });

  test('when one message is addressed to routes of two projects, then two rows, each with only its project’s recipients and routes', async () => {
    const raw = message('Two projects');
    await transportTo(t.mx.port).sendMail({ envelope: { from: 'ann@example.test', to: ['sales@other.test', 'support@acme.test'] }, raw });
    const rows = await storedRows(t.pool);
    expect(rows.map((r) => ({ project: r.project_id, rcpt: r.rcpt_to, routes: r.route_ids }))).toEqual([
      { project: other.projectId, rcpt: ['sales@other.test'], routes: [other.routes['sales@other.test']] },
      { project: acme.projectId, rcpt: ['support@acme.test'], routes: [acme.routes['support@acme.test']] },
    ]);
    expect(rows.every((r) => r.raw.equals(raw))).toBe(true);
  });

  test('when a message is stored, then its inbound job reaches the processing worker and the row is parsed', async () => {
    const info = await transportTo(t.mx.port).sendMail({ envelope: { from: 'ann@example.test', to: ['support@acme.test'] }, raw: message('Queued') });
    const id = /inb_[0-9A-Z]{26}/.exec(info.response)?.[0];
    // Well before the reconciler's grace period (30 s): only the job can have brought it there.
    await until(async () => {
      const { rows } = await t.pool.query<{ processed_at: Date | null }>({ text: 'SELECT processed_at FROM received_emails WHERE id = $1', values: [id] });
      return rows[0]?.processed_at != null;
    }, 10_000, 'the message to be processed');
    const { rows } = await t.pool.query<{ subject: string }>({ text: 'SELECT subject FROM received_emails WHERE id = $1', values: [id] });
    expect(rows[0]?.subject).toBe('Queued');
  });

  test('when a client pipelines MAIL, RCPT and DATA (RFC 2920), then the replies come in order, and the message is stored', async () => {
    // The replies are batched per turn of the event loop (packages/core/src/writes-per-turn.test.ts); a first RCPT
    // puts the route in the resolver's cache, so all three are answered in the same turn.
    expect(await rcptReply(t.mx.port, 'support@acme.test')).toMatch(/^250/);
    const smtp = await RawSmtp.open(t.mx.port);
    await smtp.reply();
    await smtp.command('EHLO client.example.test');
    smtp.write('MAIL FROM:<ann@example.test>\r\nRCPT TO:<support@acme.test>\r\nDATA\r\n');
    const replies = [await smtp.reply(), await smtp.reply(), await smtp.reply()];
    expect(replies.map((r) => r.slice(0, 3))).toEqual(['250', '250', '354']);
    smtp.write(Buffer.concat([message('Pipelined'), Buffer.from('.\r\n')]));
    expect(await smtp.reply()).toMatch(/^250 2\.6\.0 Ok: queued as inb_/);
    smtp.end();
    expect(await storedRows(t.pool)).toHaveLength(1);
  });

  test('when a client half-closes its side right after the final dot (with or without QUIT), then it still gets the 250 (and the 221), and then the MX closes the connection', async () => {
    for (const quit of ['', 'QUIT\r\n']) {
      const smtp = await RawSmtp.open(t.mx.port);
      await smtp.startMessage('ann@example.test', ['support@acme.test']);
      smtp.write(Buffer.concat([message(`Half closed ${quit.length}`), Buffer.from(`.\r\n${quit}`)]));
      smtp.halfClose();
      expect(await smtp.reply()).toMatch(/^250 2\.6\.0 Ok: queued as inb_/);
      if (quit) expect(await smtp.reply()).toMatch(/^221 /);
      expect(await smtp.closedByServer()).toBe(true);
    }
    // Pipelined envelope commands whose replies wait on the route lookup are answered too.
    const smtp = await RawSmtp.open(t.mx.port);
    expect(await smtp.reply()).toMatch(/^220 /);
    smtp.write('EHLO client.example.test\r\nMAIL FROM:<ann@example.test>\r\nRCPT TO:<fresh@wild.acme.test>\r\nRCPT TO:<nobody@unrouted.test>\r\n');
    smtp.halfClose();
    const replies = [await smtp.reply(), await smtp.reply(), await smtp.reply(), await smtp.reply()];
    expect(replies.map((r) => r.slice(0, 3))).toEqual(['250', '250', '250', '550']);
    expect(await smtp.closedByServer()).toBe(true);
    expect(await storedRows(t.pool)).toHaveLength(2);
  });

  test('when a client says EHLO, then SIZE, 8BITMIME, SMTPUTF8 and PIPELINING are offered, and neither AUTH nor (without a certificate) STARTTLS', async () => {
    const smtp = await RawSmtp.open(t.mx.port);
    await smtp.reply();
    const ehlo = await smtp.command('EHLO client.example.test');
    smtp.end();
    const features = ehlo.split('\n').map((l) => l.slice(4).trim());
    expect(features).toEqual(expect.arrayContaining([`SIZE ${t.config.inboundMaxMessageBytes}`, '8BITMIME', 'SMTPUTF8', 'PIPELINING']));
    expect(features.some((f) => /^AUTH|^STARTTLS/.test(f))).toBe(false);
  });

  test('when messages were accepted and refused, then the counters say so on the registry the ops server serves', async () => {
    await rcptReply(t.mx.port, 'nobody@acme.test');
    const metrics = await t.mx.registry.metrics();
    expect(metrics).toMatch(/mailroom_inbound_smtp_messages_accepted_total [1-9]/);
    expect(metrics).toMatch(/mailroom_inbound_smtp_recipients_refused_total\{reason="unknown_recipient"\} [1-9]/);
    expect(metrics).toMatch(/mailroom_inbound_smtp_stored_bytes_total [1-9]/);
    expect(metrics).toMatch(/mailroom_inbound_smtp_connections_total [1-9]/);
  });
});
