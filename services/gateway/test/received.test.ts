import { Client } from 'pg';
import { createKey, signUp, startTestGateway, type TestGateway } from '../../../test/support/gateway';
import type { ApiClient } from '../../../test/support/http';
import { insertReceived } from './received-fixtures';


const PARSED = {
  from: { address: 'alice@example.com', name: 'Alice Émile' },
  to: [{ address: 'support@acme.example', name: '' }, { address: 'sales@acme.example', name: 'Sales' }],
  cc: [{ address: 'bob@example.com', name: 'Bob' }],
  replyTo: [{ address: 'replies@example.com', name: '' }],
  subject: 'Re: Ünïcode subject',
  text: 'Thanks!\n\nOn Monday Bob wrote:\n> earlier',
  html: '<p>Thanks!</p>',
  textReply: 'Thanks!',
  headers: [
    { name: 'Received', value: 'from a' },
    { name: 'Received', value: 'from b' },
    { name: 'Subject', value: 'Re: Ünïcode subject' },
  ],
  messageId: '<reply-1@example.com>',
  inReplyTo: '<orig-1@acme.example>',
  references: ['<orig-0@acme.example>', '<orig-1@acme.example>'],
  date: '2026-11-20T08:30:00.000Z',
  authentication: {
    spf: { result: 'pass', domain: 'example.com' },
    dkim: [{ result: 'pass', domain: 'example.com', selector: 's1', aligned: true }],
    dmarc: { result: 'pass', policy: 'reject', domain: 'example.com' },
    arc: { result: 'none' },
  },
};

describe('received emails: /emails/received', () => {
  let t: TestGateway;
  let db: Client;
  let a: { projectId: string; token: string; as: ApiClient };
  let b: { projectId: string; as: ApiClient };
  let routeA: string;
  let routeA2: string;
  beforeAll(async () => {
    t = await startTestGateway({ label: 'received', env: { ALLOW_SIGNUP: 'true' } });
    db = new Client({ connectionString: t.database.url });
    await db.connect();
    const ownerA = await signUp(t.api);
    const { token } = await createKey(ownerA.as);
    a = { projectId: ownerA.projectId, token, as: t.api.as({ token }) };
    b = await signUp(t.api);
    routeA = (await a.as.post('/routes', { match: 'support@acme.example' })).body.id;
    routeA2 = (await a.as.post('/routes', { match: '*@acme.example' })).body.id;
  });
  afterAll(async () => {
    await db.end();
    await t.close();
  });

  test('when a processed email is read, then every field of DESIGN §7 is presented', async () => {
    const pdf = Buffer.from('%PDF-1.4 fake');
    const png = Buffer.from([0x89, 0x50, 0x4e, 0x47]);
    const { id, attachmentIds } = await insertReceived(db, {
      projectId: a.projectId,
      routeIds: [routeA, routeA2],
      parsed: PARSED,
      attachments: [
        { filename: 'invoice.pdf', contentType: 'application/pdf', content: pdf },
        { filename: null, contentType: 'image/png', contentId: 'logo@acme', disposition: 'inline', content: png },
      ],
    });
    const res = await a.as.get(`/emails/received/${id}`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      object: 'received_email',
      id,
      routeId: routeA,
      from: { address: 'alice@example.com', name: 'Alice Émile' },
      to: [{ address: 'support@acme.example', name: null }, { address: 'sales@acme.example', name: 'Sales' }],
      cc: [{ address: 'bob@example.com', name: 'Bob' }],
      replyTo: [{ address: 'replies@example.com', name: null }],
      subject: PARSED.subject,
      text: PARSED.text,
      html: PARSED.html,
      textReply: 'Thanks!',
      headers: PARSED.headers,
      messageId: '<reply-1@example.com>',
      inReplyTo: '<orig-1@acme.example>',
      references: ['<orig-0@acme.example>', '<orig-1@acme.example>'],
      date: '2026-11-20T08:30:00.000Z',
      envelope: { mailFrom: 'sender@example.com', rcptTo: ['support@acme.example'], remoteAddress: '203.0.113.7', helo: 'mail.example.com' },
      attachments: [
        { id: attachmentIds[0], filename: 'invoice.pdf', contentType: 'application/pdf', size: pdf.length, contentId: null, disposition: 'attachment' },
        { id: attachmentIds[1], filename: null, contentType: 'image/png', size: 4, contentId: 'logo@acme', disposition: 'inline' },
      ],
      authentication: PARSED.authentication,
      size: expect.any(Number),
      createdAt: expect.any(String),
    });
    expect(Math.abs(Date.parse(res.body.createdAt) - Date.now())).toBeLessThan(60_000);
  });

  test('when an email is not processed yet, then it shows its envelope, size and createdAt, and empty parsed fields', async () => {
    const raw = Buffer.from('Subject: pending\r\n\r\nnot parsed yet\r\n');
    const { id } = await insertReceived(db, { projectId: a.projectId, routeIds: [routeA], raw });
    const res = await a.as.get(`/emails/received/${id}`);
    expect(res.body).toEqual({
      object: 'received_email',
      id,
      routeId: routeA,
      from: null,
      to: [],
      cc: [],
      replyTo: [],
      subject: null,
      text: null,
      html: null,
      textReply: null,
      headers: [],
      messageId: null,
      inReplyTo: null,
      references: [],
      date: null,
      envelope: { mailFrom: 'sender@example.com', rcptTo: ['support@acme.example'], remoteAddress: '203.0.113.7', helo: 'mail.example.com' },
      attachments: [],
      authentication: null,
      size: raw.length,
      createdAt: expect.any(String),
    });
  });

  describe('the list', () => {
    let c: ApiClient;
    let routeX: string;
    let routeY: string;
    const ids: string[] = [];
    beforeAll(async () => {
      const owner = await signUp(t.api);
      c = owner.as;
      routeX = (await c.post('/routes', { match: 'x@list.example' })).body.id;
      routeY = (await c.post('/routes', { match: 'y@list.example' })).body.id;
      // Oldest first: X, Y, X+Y, unprocessed X, feedback (no route).
      ids.push((await insertReceived(db, { projectId: owner.projectId, routeIds: [routeX], parsed: PARSED })).id);
      ids.push((await insertReceived(db, { projectId: owner.projectId, routeIds: [routeY], parsed: PARSED })).id);
      ids.push((await insertReceived(db, { projectId: owner.projectId, routeIds: [routeY, routeX], parsed: PARSED })).id);
      ids.push((await insertReceived(db, { projectId: owner.projectId, routeIds: [routeX] })).id);
      ids.push((await insertReceived(db, { projectId: owner.projectId, kind: 'feedback', routeIds: [], parsed: PARSED })).id);
      ids.reverse();
      // Neither another project's mail nor feedback no project claims shows up.
      await insertReceived(db, { projectId: b.projectId, routeIds: [routeX], parsed: PARSED });
      await insertReceived(db, { projectId: null, kind: 'feedback', parsed: PARSED });
    });

    test('when listed, then newest first, without bodies and headers, paged by limit and after', async () => {
      const all = await c.get('/emails/received');
      expect(all.body.object).toBe('list');
      expect(all.body.data.map((e: { id: string }) => e.id)).toEqual(ids);
      expect(all.body.hasMore).toBe(false);
      const item = all.body.data[2];
      expect(item).toMatchObject({ object: 'received_email', routeId: routeY, subject: PARSED.subject, from: PARSED.from, attachments: [] });
      for (const field of ['text', 'html', 'textReply', 'headers']) expect(item).not.toHaveProperty(field);
      expect(all.body.data[0].routeId).toBeNull();

      const first = await c.get('/emails/received?limit=2');
      expect(first.body.data.map((e: { id: string }) => e.id)).toEqual(ids.slice(0, 2));
      expect(first.body.hasMore).toBe(true);
      const rest = await c.get(`/emails/received?limit=2&after=${ids[3]}`);
      expect(rest.body).toMatchObject({ data: [expect.objectContaining({ id: ids[4] })], hasMore: false });
      expect((await c.get('/emails/received?limit=101')).body).toMatchObject({ name: 'validation_error', statusCode: 422 });
    });

    test('when filtered by routeId (or route_id), then only mail that any of its routes matched', async () => {
      const x = await c.get(`/emails/received?routeId=${routeX}`);
      expect(x.body.data.map((e: { id: string }) => e.id)).toEqual([ids[1], ids[2], ids[4]]);
      const y = await c.get(`/emails/received?route_id=${routeY}&limit=1`);
      expect(y.body.data.map((e: { id: string }) => e.id)).toEqual([ids[2]]);
      expect(y.body.hasMore).toBe(true);
      // Another project's route filters to nothing of this project.
      expect((await c.get(`/emails/received?routeId=${routeA}`)).body.data).toEqual([]);
    });

    test('when routeId is not a route id, then 422 validation_error naming it', async () => {
      for (const value of ['nope', 'em_01KAQ4B2C3D4E5F6G7H8J9K0MN']) {
        const res = await c.get(`/emails/received?routeId=${value}`);
        expect(res.status).toBe(422);
        expect(res.body).toEqual({ name: 'validation_error', message: expect.stringContaining('`routeId`'), statusCode: 422 });
      }
    });
  });

  test('when the raw message is downloaded, then the exact stored bytes (not UTF-8) as an .eml attachment that is never rendered', async () => {
    const raw = Buffer.concat([
      Buffer.from('Subject: =?ISO-8859-1?Q?caf=E9?=\r\nContent-Type: text/plain; charset=ISO-8859-1\r\n\r\n'),
      Buffer.from([0x63, 0x61, 0x66, 0xe9, 0x00, 0xff, 0xfe, 0x80, 0x0d, 0x0a, 0x2e, 0x0a]),
    ]);
    const { id } = await insertReceived(db, { projectId: a.projectId, routeIds: [routeA], raw });
    const res = await fetch(`${t.gateway.url}/emails/received/${id}/raw`, { headers: { authorization: `Bearer ${a.token}` } });
    expect(res.status).toBe(200);
    expect(Buffer.from(await res.arrayBuffer()).equals(raw)).toBe(true);
    expect(res.headers.get('content-type')).toBe('message/rfc822');
    expect(res.headers.get('content-disposition')).toBe(`attachment; filename="${id}.eml"`);
    expect(res.headers.get('content-length')).toBe(String(raw.length));
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    expect(res.headers.get('content-security-policy')).toBe('sandbox');
    expect(res.headers.get('x-request-id')).toBeTruthy();
  });

  test('when an attachment is downloaded, then its exact bytes, its content type, and a safe RFC 6266 file name, path separators left out of both forms', async () => {
    const html = Buffer.from('<script>alert(1)</script>');
    const big = Buffer.alloc(20 * 1024 * 1024 + 17);
    for (let i = 0; i < big.length; i += 4096) big[i] = i % 251;
    const { id, attachmentIds } = await insertReceived(db, {
      projectId: a.projectId,
      routeIds: [routeA],
      parsed: PARSED,
      attachments: [
        { filename: 'Résumé "final"\\..\\a/b%20.html', contentType: 'text/html', content: html },
        { filename: null, contentType: 'bogus\r\nSet-Cookie: x=1', content: Buffer.from([0, 1, 2, 255]) },
        { filename: 'big.bin', contentType: 'application/octet-stream', content: big },
      ],
    });
    const get = (attachmentId: string | undefined) => fetch(`${t.gateway.url}/emails/received/${id}/attachments/${attachmentId}`, { headers: { authorization: `Bearer ${a.token}` } });

    const first = await get(attachmentIds[0]);
    expect(first.status).toBe(200);
    expect(Buffer.from(await first.arrayBuffer()).equals(html)).toBe(true);
    expect(first.headers.get('content-type')).toBe('text/html');
    expect(first.headers.get('content-disposition')).toBe(
      `attachment; filename="R_sum_ _final__.._a_b_20.html"; filename*=UTF-8''R%C3%A9sum%C3%A9%20%22final%22_.._a_b%2520.html`,
    );
    expect(first.headers.get('x-content-type-options')).toBe('nosniff');
    expect(first.headers.get('content-security-policy')).toBe('sandbox');

    const second = await get(attachmentIds[1]);
    expect([...Buffer.from(await second.arrayBuffer())]).toEqual([0, 1, 2, 255]);
    expect(second.headers.get('content-type')).toBe('application/octet-stream');
    expect(second.headers.get('set-cookie')).toBeNull();
    expect(second.headers.get('content-disposition')).toBe(`attachment; filename="${attachmentIds[1]}"; filename*=UTF-8''${attachmentIds[1]}`);

    const third = await get(attachmentIds[2]);
    expect(third.headers.get('content-length')).toBe(String(big.length));
    expect(Buffer.from(await third.arrayBuffer()).equals(big)).toBe(true);
  });

  test("when another project's received email, raw or attachment is asked for, or an attachment of another email, then 404 not_found", async () => {
    const theirs = await insertReceived(db, {
      projectId: b.projectId,
      parsed: PARSED,
      attachments: [{ filename: 'x.txt', contentType: 'text/plain', content: Buffer.from('secret') }],
    });
    const orphan = await insertReceived(db, { projectId: null, kind: 'feedback', parsed: PARSED });
    const mine = await insertReceived(db, {
      projectId: a.projectId,
      routeIds: [routeA],
      attachments: [{ filename: 'y.txt', contentType: 'text/plain', content: Buffer.from('mine') }],
    });
    for (const path of [
      `/emails/received/${theirs.id}`,
      `/emails/received/${theirs.id}/raw`,
      `/emails/received/${theirs.id}/attachments/${theirs.attachmentIds[0]}`,
      `/emails/received/${mine.id}/attachments/${theirs.attachmentIds[0]}`,
      `/emails/received/${theirs.id}/attachments/${mine.attachmentIds[0]}`,
      `/emails/received/${orphan.id}`,
      `/emails/received/${orphan.id}/raw`,
      '/emails/received/inb_nonsense',
      `/emails/received/${mine.id}/attachments/att_nonsense`,
    ]) {
      const res = await a.as.get(path);
      expect({ path, status: res.status }).toEqual({ path, status: 404 });
      expect(res.headers.get('content-type')).toContain('application/json');
      expect(res.body).toEqual({ name: 'not_found', message: expect.any(String), statusCode: 404 });
    }
    expect((await b.as.get(`/emails/received/${theirs.id}/attachments/${theirs.attachmentIds[0]}`)).text).toBe('secret');
    const listed = (await a.as.get('/emails/received?limit=100')).body.data.map((e: { id: string }) => e.id);
    expect(listed).toContain(mine.id);
    expect(listed).not.toContain(theirs.id);
    expect(listed).not.toContain(orphan.id);
  });

  test('when a sending_access key reads received email, then 403 restricted_api_key', async () => {
    const owner = await signUp(t.api);
    const sender = t.api.as({ token: (await createKey(owner.as, 'sending_access')).token });
    const { id, attachmentIds } = await insertReceived(db, {
      projectId: owner.projectId,
      attachments: [{ filename: 'z.txt', contentType: 'text/plain', content: Buffer.from('z') }],
    });
    for (const path of ['/emails/received', `/emails/received/${id}`, `/emails/received/${id}/raw`, `/emails/received/${id}/attachments/${attachmentIds[0]}`]) {
      const res = await sender.get(path);
      expect({ path, status: res.status, name: res.body.name }).toEqual({ path, status: 403, name: 'restricted_api_key' });
    }
  });

  test('when /emails/received is asked for, then it is the received list, not a sent email called "received"', async () => {
    const res = await a.as.get('/emails/received?limit=1');
    expect(res.status).toBe(200);
    expect(res.body.object).toBe('list');
    expect((await a.as.post('/emails/received', {})).status).toBe(405);
  });
});

