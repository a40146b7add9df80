import { createPool, type Pool } from '@mailroom/db';
import { createTransport } from 'nodemailer';
import { createTestDatabase, type TestDatabase } from '../../../test/support/databases';
import { DnsServer } from '../../../test/support/dns-server';
import { freePort } from '../../../test/support/free-port';
import { createKey, signUp, startTestGateway, testEnv, type TestGateway } from '../../../test/support/gateway';
import type { ApiClient } from '../../../test/support/http';
import { ServiceProcess } from '../../../test/support/service-process';
import { RawSmtp, startTestMx, swaks, type TestMx, until } from './smtp-support';

/**
 * Inbound mail end to end, through the real pieces: a route made with the API, real SMTP
 * clients (swaks, nodemailer) talking to the real MX, the processing after the 250, and the
 * received email read back through the API in the shape of DESIGN §7.
 */


const queuedId = (reply: string) => /inb_[0-9A-Z]{26}/.exec(reply)?.[0] as string;

async function waitProcessed(api: ApiClient, id: string): Promise<any> {
  let body: any;
  await until(
    async () => {
      const res = await api.get(`/emails/received/${id}`);
      body = res.body;
      return res.status === 200 && body.subject !== null && body.authentication !== null;
    },
    20_000,
    `received email ${id} to be processed`,
  );
  return body;
}

// A reply with a quoted history and a signature, an inline image and an attachment.
function replyMessage(): Buffer {
  const png = Buffer.from('89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c489', 'hex');
  return Buffer.from(
    [
      'From: "Zoë Example" <zoe@example.test>',
      'To: Support <support@acme.test>, other@elsewhere.test',
      'Cc: boss@example.test',
      'Reply-To: replies@example.test',
      'Subject: =?UTF-8?B?UmU6IHlvdXIgb3JkZXIg4oCTIGTDqWrDoCB2dQ==?=',
      'Date: Tue, 25 Nov 2025 09:30:00 +0100',
      'Message-ID: <reply-1@example.test>',
      'In-Reply-To: <order-7@acme.test>',
      'References: <order-6@acme.test> <order-7@acme.test>',
      'MIME-Version: 1.0',
      'Content-Type: multipart/mixed; boundary="outer"',
      '',
      '--outer',
      'Content-Type: multipart/related; boundary="rel"',
      '',
      '--rel',
      'Content-Type: multipart/alternative; boundary="alt"',
      '',
      '--alt',
      'Content-Type: text/plain; charset=utf-8',
      'Content-Transfer-Encoding: 8bit',
      '',
      'Yes, ship it on Monday.',
      '',
      '-- ',
      'Zoë',
      '',
      'On Mon, 24 Nov 2025 at 10:00, Acme <support@acme.test> wrote:',
      '> Shall we ship your order on Monday?',
      '--alt',
      'Content-Type: text/html; charset=utf-8',
      '',
      '<p>Yes, ship it on Monday.</p><img src="cid:logo@example.test">',
      '--alt--',
      '--rel',
      'Content-Type: image/png',
      'Content-ID: <logo@example.test>',
      'Content-Disposition: inline',
      'Content-Transfer-Encoding: base64',
      '',
      png.toString('base64'),
      '--rel--',
      '--outer',
      "Content-Type: text/csv; name*=UTF-8''r%C3%A9sum%C3%A9.csv",
      "Content-Disposition: attachment; filename*=UTF-8''r%C3%A9sum%C3%A9.csv",
      '',
      'a,b',
      '1,2',
      '--outer--',
      '',
    ].join('\r\n'),
  );
}

describe('inbound mail end to end', () => {
  let database: TestDatabase;
  let gw: TestGateway;
  let mx: TestMx;
  let acme: ApiClient;
  let acmeToken: string;
  let globex: ApiClient;
  let supportRoute: string;
  let globexRoute: string;

  beforeAll(async () => {
    database = await createTestDatabase('inbound-e2e');
    gw = await startTestGateway({ database, env: { ALLOW_SIGNUP: 'true' } });
    mx = await startTestMx({ database, env: { RECONCILE_INTERVAL_SECONDS: '1' } });
    const a = await signUp(gw.api);
    acmeToken = (await createKey(a.as)).token;
    acme = gw.api.as({ token: acmeToken });
    const g = await signUp(gw.api);
    globex = gw.api.as({ token: (await createKey(g.as)).token });
    supportRoute = (await acme.post('/routes', { match: 'Support@Acme.test', name: 'Support' })).body.id;
    globexRoute = (await globex.post('/routes', { match: '*@globex.test' })).body.id;
  });
  afterAll(async () => {
    await mx.close();
    await gw.close();
    await database.drop();
  });

  test('when nodemailer delivers a reply to a route made with the API, then GET /emails/received/{id} shows every field of DESIGN §7', async () => {
    const raw = replyMessage();
    const info = await createTransport({ host: '127.0.0.1', port: mx.mx.port, secure: false, ignoreTLS: true, name: 'client.example.test' }).sendMail({
      envelope: { from: 'bounces@example.test', to: ['support+orders@acme.test'] },
      raw,
    });
    expect(info.response).toMatch(/^250 /);
    const id = queuedId(info.response);
    const email = await waitProcessed(acme, id);

    expect(email).toMatchObject({
      object: 'received_email',
      id,
      routeId: supportRoute,
      from: { address: 'zoe@example.test', name: 'Zoë Example' },
      to: [
        { address: 'support@acme.test', name: 'Support' },
        { address: 'other@elsewhere.test', name: null },
      ],
      cc: [{ address: 'boss@example.test', name: null }],
      replyTo: [{ address: 'replies@example.test', name: null }],
      subject: 'Re: your order – déjà vu',
      textReply: 'Yes, ship it on Monday.',
      messageId: '<reply-1@example.test>',
      inReplyTo: '<order-7@acme.test>',
      references: ['<order-6@acme.test>', '<order-7@acme.test>'],
      date: '2025-11-25T08:30:00.000Z',
      envelope: { mailFrom: 'bounces@example.test', rcptTo: ['support+orders@acme.test'], remoteAddress: '127.0.0.1', helo: 'client.example.test' },
      size: raw.length,
    });
    expect(email.text).toContain('Yes, ship it on Monday.');
    expect(email.text).toContain('> Shall we ship your order on Monday?');
    expect(email.html).toContain('<img src="cid:logo@example.test">');
    expect(email.headers).toEqual(expect.arrayContaining([{ name: 'Message-ID', value: '<reply-1@example.test>' }]));
    expect(Object.keys(email.authentication).sort()).toEqual(['arc', 'dkim', 'dmarc', 'spf']);
    expect(Date.parse(email.createdAt)).not.toBeNaN();
    expect(email.attachments).toEqual([
      expect.objectContaining({ filename: null, contentType: 'image/png', contentId: 'logo@example.test', disposition: 'inline', size: 33 }),
      expect.objectContaining({ filename: 'résumé.csv', contentType: 'text/csv', contentId: null, disposition: 'attachment', size: 8 }),
    ]);

    const authorization = `Bearer ${acmeToken}`;
    const rawRes = await fetch(`${gw.gateway.url}/emails/received/${id}/raw`, { headers: { authorization } });
    expect(Buffer.from(await rawRes.arrayBuffer()).equals(raw)).toBe(true);
    const csv = email.attachments[1];
    const csvRes = await fetch(`${gw.gateway.url}/emails/received/${id}/attachments/${csv.id}`, { headers: { authorization } });
    expect(csvRes.headers.get('content-disposition')).toMatch(/^attachment;/);
    expect(await csvRes.text()).toBe('a,b\r\n1,2');

    const listed = await acme.get(`/emails/received?routeId=${supportRoute}`);
    expect(listed.body.data.map((e: { id: string }) => e.id)).toContain(id);
  });

  test('when swaks delivers to a wildcard route, then the email is parsed and email.received is on the outbox once, with the compact payload', async () => {
    const { code, output } = await swaks([
      '--server', `127.0.0.1:${mx.mx.port}`, '--helo', 'swaks.example.test', '--from', 'ann@example.test', '--to', 'Sales@Globex.test',
      '--header', 'Subject: quote please', '--body', 'How much for 10?', '--silent', '1', '--hide-all',
    ]);
    expect(code).toBe(0);
    expect(output).toBe('');
    const listed = await globex.get('/emails/received');
    const id = listed.body.data[0]?.id as string;
    const email = await waitProcessed(globex, id);
    expect(email).toMatchObject({ routeId: globexRoute, subject: 'quote please', envelope: { helo: 'swaks.example.test', rcptTo: ['Sales@Globex.test'] } });
    expect(email.text.trim()).toBe('How much for 10?');

    const events = await mx.pool.query<{ id: string; type: string; data: any }>({
      text: 'SELECT id, type, data FROM email_events WHERE received_email_id = $1',
      values: [id],
    });
    expect(events.rows).toHaveLength(1);
    expect(events.rows[0]).toMatchObject({
      type: 'email.received',
      data: { email_id: id, from: 'ann@example.test', to: ['Sales@Globex.test'], subject: 'quote please', route_id: globexRoute },
    });
  });

  test('when one message is addressed to routes of two projects, then each reads only its own copy and recipients, and the other copy is a 404', async () => {
    const info = await createTransport({ host: '127.0.0.1', port: mx.mx.port, secure: false, ignoreTLS: true }).sendMail({
      envelope: { from: 'ann@example.test', to: ['support@acme.test', 'sales@globex.test'] },
      raw: 'From: ann@example.test\r\nTo: support@acme.test, sales@globex.test\r\nSubject: both\r\n\r\nHi both.\r\n',
    });
    expect(info.accepted).toEqual(['support@acme.test', 'sales@globex.test']);
    const acmeList = (await acme.get('/emails/received')).body.data;
    const globexList = (await globex.get('/emails/received')).body.data;
    const acmeCopy = await waitProcessed(acme, acmeList[0].id);
    const globexCopy = await waitProcessed(globex, globexList[0].id);

    expect(acmeCopy.id).not.toBe(globexCopy.id);
    expect(acmeCopy.envelope.rcptTo).toEqual(['support@acme.test']);
    expect(globexCopy.envelope.rcptTo).toEqual(['sales@globex.test']);
    expect(acmeCopy.routeId).toBe(supportRoute);
    expect(globexCopy.routeId).toBe(globexRoute);
    for (const path of ['', '/raw']) {
      const res = await acme.get(`/emails/received/${globexCopy.id}${path}`);
      expect(res.status).toBe(404);
      expect(res.body).toMatchObject({ name: 'not_found', statusCode: 404 });
    }
    expect((await acme.get(`/emails/received?routeId=${globexRoute}`)).body.data).toEqual([]);
  });
});

describe('the MX killed right after a 250', () => {
  let database: TestDatabase;
  let pool: Pool;

  beforeAll(async () => {
    database = await createTestDatabase('inbound-kill');
    pool = createPool(database.url, 2);
  });
  afterAll(async () => {
    await pool.end();
    await database.drop();
  });

  test('when the process is SIGKILLed after acknowledging, then after a restart every message is parsed and email.received recorded once, keeping the evt_ id it had', async () => {
    // Mail from slow.test waits on DNS the MX never gets an answer to, so it is still being
    // processed when the process dies; mail from fast.test is processed before the kill.
    const stuckDns = await new DnsServer({ silent: ['slow.test', '_dmarc.slow.test'] }).start();
    const answeringDns = await new DnsServer().start();
    const env = testEnv(database, { SMTP_PORT: String(await freePort()), RECONCILE_INTERVAL_SECONDS: '1', LOG_LEVEL: 'info' });
    const projectId = 'proj_01KAAAAAAAAAAAAAAAAAAAAAAA';
    await pool.query({ text: "INSERT INTO projects (id, name, updated_at) VALUES ($1, 'Kill', now())", values: [projectId] });
    await pool.query({ text: "INSERT INTO routes (id, project_id, match) VALUES ('rt_01KAAAAAAAAAAAAAAAAAAAAAAA', $1, 'in@kill.test')", values: [projectId] });
    const eventsOf = async () =>
      (await pool.query<{ id: string; received_email_id: string }>({ text: "SELECT id, received_email_id FROM email_events WHERE type = 'email.received' ORDER BY id" }))
        .rows;

    const first = await ServiceProcess.start('inbound-smtp', { ...env, DNS_SERVERS: stuckDns.address }, 'inbound SMTP started');
    const transport = createTransport({ host: '127.0.0.1', port: Number(env.SMTP_PORT), secure: false, ignoreTLS: true });
    const send = async (from: string, subject: string) =>
      queuedId((await transport.sendMail({ envelope: { from, to: ['in@kill.test'] }, raw: `From: ${from}\r\nTo: in@kill.test\r\nSubject: ${subject}\r\n\r\nBody.\r\n` })).response);
    const fast = await send('ann@fast.test', 'fast');
    await until(async () => (await eventsOf()).length === 1, 10_000, 'the fast message to be processed');
    const slow = [await send('bob@slow.test', 'slow 1'), await send('bob@slow.test', 'slow 2')];
    first.kill('SIGKILL');
    await first.waitForExit();
    transport.close();

    const before = await eventsOf();
    expect(before.map((e) => e.received_email_id)).toEqual([fast]);
    // Every acknowledged message was stored before its 250.
    const stored = await pool.query<{ id: string; processed_at: Date | null }>({ text: 'SELECT id, processed_at FROM received_emails ORDER BY id' });
    expect(stored.rows.map((r) => [r.id, r.processed_at !== null])).toEqual([
      [fast, true],
      [slow[0], false],
      [slow[1], false],
    ]);

    const second = await ServiceProcess.start('inbound-smtp', { ...env, DNS_SERVERS: answeringDns.address }, 'inbound SMTP started');
    try {
      await until(
        async () => (await pool.query({ text: 'SELECT 1 FROM received_emails WHERE processed_at IS NULL' })).rowCount === 0,
        30_000,
        'every message to be processed after the restart',
      );
      const after = await eventsOf();
      expect(after.map((e) => e.received_email_id).sort()).toEqual([fast, ...slow].sort());
      expect(after).toContainEqual(before[0]);
      const subjects = await pool.query<{ subject: string }>({ text: 'SELECT subject FROM received_emails ORDER BY id' });
      expect(subjects.rows.map((r) => r.subject)).toEqual(['fast', 'slow 1', 'slow 2']);
    } finally {
      await second.stop();
      await Promise.all([stuckDns.stop(), answeringDns.stop()]);
    }
  }, 60_000);
});

describe('the MX killed while clients send', () => {
  interface Sent {
    subject: string;
    raw: Buffer;
    acknowledged: boolean;
  }

  // One client: connections of up to 5 pipelined messages each (MAIL, RCPT and DATA in one
  // write, the body in two), until the server goes away.
  async function sendUntilGone(port: number, client: number, sent: Sent[]): Promise<void> {
    for (let n = 0; ; ) {
      let smtp: RawSmtp;
      try {
        smtp = await RawSmtp.open(port);
      } catch {
        return;
      }
      try {
        if (!(await smtp.reply()).startsWith('220') || !(await smtp.command('EHLO client.example.test')).startsWith('250')) return;
        for (let k = 0; k < 5; k++) {
          const subject = `c${client}-${n++}`;
          const entry: Sent = { subject, raw: Buffer.from(`Subject: ${subject}\r\n\r\n${'x'.repeat((n * 997) % 3000)}\r\n`), acknowledged: false };
          sent.push(entry);
          smtp.write('MAIL FROM:<ann@example.test>\r\nRCPT TO:<in@chaos.test>\r\nDATA\r\n');
          await smtp.reply();
          await smtp.reply();
          if (!(await smtp.reply()).startsWith('354')) return;
          smtp.write(entry.raw.subarray(0, 20));
          smtp.write(Buffer.concat([entry.raw.subarray(20), Buffer.from('.\r\n')]));
          if (!(await smtp.reply(10_000)).startsWith('250')) return;
          entry.acknowledged = true;
        }
        if (n % 2 === 0) smtp.write('QUIT\r\n');
      } catch {
        return;
      } finally {
        smtp.end();
      }
    }
  }

  test('when the process is SIGKILLed while clients pipeline messages, then every acknowledged message is stored once with its exact bytes, and after a restart each is parsed with one email.received', async () => {
    const database = await createTestDatabase('inbound-chaos');
    const pool = createPool(database.url, 2);
    const env = testEnv(database, { SMTP_PORT: String(await freePort()), RECONCILE_INTERVAL_SECONDS: '1', LOG_LEVEL: 'info' });
    const port = Number(env.SMTP_PORT);
    let restarted: ServiceProcess | undefined;
    try {
      await pool.query({ text: "INSERT INTO projects (id, name, updated_at) VALUES ('proj_01KCCCCCCCCCCCCCCCCCCCCCCC', 'Chaos', now())" });
      await pool.query({ text: "INSERT INTO routes (id, project_id, match) VALUES ('rt_01KCCCCCCCCCCCCCCCCCCCCCCC', 'proj_01KCCCCCCCCCCCCCCCCCCCCCCC', 'in@chaos.test')" });
      const first = await ServiceProcess.start('inbound-smtp', env, 'inbound SMTP started');
      const sent: Sent[] = [];
      const clients = [1, 2, 3, 4].map((c) => sendUntilGone(port, c, sent));
      await until(async () => sent.filter((s) => s.acknowledged).length >= 20, 10_000, 'some messages to be acknowledged');
      first.kill('SIGKILL');
      await first.waitForExit();
      await Promise.all(clients);

      restarted = await ServiceProcess.start('inbound-smtp', env, 'inbound SMTP started');
      await until(async () => (await pool.query({ text: 'SELECT 1 FROM received_emails WHERE processed_at IS NULL' })).rowCount === 0, 30_000, 'every stored message to be processed');
      const rows = (await pool.query<{ id: string; subject: string; raw: Buffer }>({ text: 'SELECT id, subject, raw FROM received_emails' })).rows;
      const stored = new Map<string, Buffer[]>();
      for (const r of rows) stored.set(r.subject, [...(stored.get(r.subject) ?? []), r.raw]);
      // Acknowledged: stored exactly once. Not acknowledged: at most once (the kill can fall
      // between a commit and its 250). Always byte for byte.
      const wrong = sent.filter((s) => {
        const copies = stored.get(s.subject) ?? [];
        return copies.length !== (s.acknowledged ? 1 : Math.min(copies.length, 1)) || copies.some((raw) => !raw.equals(s.raw));
      });
      expect(wrong.map((s) => [s.subject, s.acknowledged, stored.get(s.subject)?.length ?? 0])).toEqual([]);
      expect(rows.length).toBeLessThanOrEqual(sent.length);
      const events = await pool.query<{ received_email_id: string }>({ text: "SELECT received_email_id FROM email_events WHERE type = 'email.received' ORDER BY received_email_id" });
      expect(events.rows.map((e) => e.received_email_id)).toEqual(rows.map((r) => r.id).sort());
    } finally {
      await restarted?.stop();
      await pool.end();
      await database.drop();
    }
  }, 60_000);
});

describe('the MX and the processing in separate processes (INBOUND_ROLE)', () => {
  test('when one process only accepts (smtp) and another only processes (processing), then mail is stored by the first and parsed by the second', async () => {
    const database = await createTestDatabase('inbound-roles');
    const smtpOnly = await startTestMx({ database, env: { INBOUND_ROLE: 'smtp' } });
    const queuePrefix = smtpOnly.config.queuePrefix;
    let processingOnly: TestMx | undefined;
    try {
      expect(smtpOnly.mx.processing).toBeUndefined();
      await smtpOnly.pool.query({ text: "INSERT INTO projects (id, name, updated_at) VALUES ('proj_01KBBBBBBBBBBBBBBBBBBBBBBB', 'Roles', now())" });
      await smtpOnly.pool.query({ text: "INSERT INTO routes (id, project_id, match) VALUES ('rt_01KBBBBBBBBBBBBBBBBBBBBBBB', 'proj_01KBBBBBBBBBBBBBBBBBBBBBBB', 'in@roles.test')" });
      const info = await createTransport({ host: '127.0.0.1', port: smtpOnly.mx.port, secure: false, ignoreTLS: true }).sendMail({
        envelope: { from: 'ann@example.test', to: ['in@roles.test'] },
        raw: 'From: ann@example.test\r\nTo: in@roles.test\r\nSubject: split\r\n\r\nHi.\r\n',
      });
      const id = queuedId(info.response);
      const processedAt = async () =>
        (await smtpOnly.pool.query<{ processed_at: Date | null }>({ text: 'SELECT processed_at FROM received_emails WHERE id = $1', values: [id] })).rows[0]
          ?.processed_at;
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(await processedAt()).toBeNull();

      // Same queues (prefix), no SMTP port: it takes the job the MX left.
      processingOnly = await startTestMx({ database, env: { INBOUND_ROLE: 'processing', QUEUE_PREFIX: queuePrefix } });
      expect(processingOnly.mx.port).toBe(0);
      await until(async () => (await processedAt()) != null, 10_000, 'the processing-only process to parse the message');
    } finally {
      await processingOnly?.close();
      await smtpOnly.close();
      await database.drop();
    }
  });
});
