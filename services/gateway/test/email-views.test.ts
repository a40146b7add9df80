import { signUp, startTestGateway, type TestGateway } from '../../../test/support/gateway';
import type { ApiClient } from '../../../test/support/http';
import { startSendingStack, waitForEmail, type SendingStack } from '../../../test/support/sending';
import { SmtpSink } from '../../../test/support/smtp-sink';

const base = { from: 'Acme <hello@acme.test>', subject: 'Hi', text: 'Hello' };

describe('GET /emails/{id}: each recipient says where its delivery stands', () => {
  let sink: SmtpSink;
  let s: SendingStack;
  beforeAll(async () => {
    sink = await new SmtpSink({
      starttls: false,
      rcpt: (recipient) => (recipient.toLowerCase().startsWith('later') ? { code: 451, message: '4.7.1 Greylisted, try again in 300 seconds' } : { code: 250, message: 'OK' }),
    }).start();
    // A first retry 10 minutes out: the delayed recipient stays delayed for the whole test.
    s = await startSendingStack('emailviews', { OUTBOUND_SMTP_URL: `smtp://127.0.0.1:${sink.port}`, SMTP_RETRY_SCHEDULE: '600,600' });
  });
  afterAll(async () => {
    await s.close();
    await sink.stop();
  });

  test('when one recipient is delivered and another deferred, then each shows its kind, status, attempts, last response and next attempt', async () => {
    const sentAt = Date.now();
    const { id } = (await s.api.post('/emails', { ...base, to: 'now@example.test', cc: 'Later@Example.test' })).body;

    const email = await waitForEmail(s.api, id, (e) => e.status === 'delivery_delayed' && e.recipients.every((r: any) => r.attempts > 0));

    expect(email.recipients).toEqual([
      { email: 'now@example.test', kind: 'to', status: 'delivered', attempts: 1, lastResponse: '250 OK: queued', nextAttemptAt: null, opens: 0, clicks: 0, firstOpenedAt: null },
      {
        email: 'Later@Example.test',
        kind: 'cc',
        status: 'delivery_delayed',
        attempts: 1,
        lastResponse: '451 4.7.1 Greylisted, try again in 300 seconds',
        nextAttemptAt: expect.any(String),
        opens: 0,
        clicks: 0,
        firstOpenedAt: null,
      },
    ]);
    // "Try again in 300 seconds" cannot bring a retry sooner than the schedule's first delay, 600 s.
    const nextInMs = Date.parse(email.recipients[1].nextAttemptAt) - sentAt;
    expect(nextInMs).toBeGreaterThanOrEqual(600_000);
    expect(nextInMs).toBeLessThan(610_000);
  });
});

describe('GET /emails?to=: the emails sent to one address', () => {
  let t: TestGateway;
  let api: ApiClient;
  let other: ApiClient;
  const ids: Record<string, string> = {};
  beforeAll(async () => {
    t = await startTestGateway({ label: 'emailsto', env: { ALLOW_SIGNUP: 'true' } });
    api = (await signUp(t.api)).as;
    other = (await signUp(t.api)).as;
    const send = async (name: string, body: object, as = api) => {
      const res = await as.post('/emails', { ...base, subject: name, ...body });
      if (res.status !== 200) throw new Error(`send ${name}: ${res.status} ${res.text}`);
      ids[name] = res.body.id;
    };
    // Sent one after another: ids, and so the list's order, follow this order.
    await send('to', { to: 'ada@example.test' });
    await send('cc', { to: 'bob@example.test', cc: ['carol@example.test', 'Ada <ADA@Example.Test>'] });
    await send('bcc', { to: 'bob@example.test', bcc: 'ada@example.test' });
    await send('longer', { to: 'aada@example.test' });
    await send('scheduled', { to: 'ada@example.test', scheduledAt: new Date(Date.now() + 3_600_000).toISOString() });
    await send('otherProject', { to: 'ada@example.test' }, other);
    const cancel = await api.post(`/emails/${ids.scheduled}/cancel`);
    if (cancel.status !== 200) throw new Error(`cancel: ${cancel.status} ${cancel.text}`);
  });
  afterAll(() => t.close());

  const subjects = (body: any) => body.data.map((e: any) => e.subject);

  test('when filtered by an address, then the project emails with it among to, cc or bcc come back, newest first, in any letter case', async () => {
    const res = await api.get('/emails?to=ADA@example.TEST');
    expect(res.status).toBe(200);
    expect(subjects(res.body)).toEqual(['scheduled', 'bcc', 'cc', 'to']);
    expect(res.body.hasMore).toBe(false);
    const cc = res.body.data.find((e: any) => e.subject === 'cc');
    expect(cc.recipients.map((r: any) => [r.email, r.kind])).toEqual([
      ['bob@example.test', 'to'],
      ['carol@example.test', 'cc'],
      ['ADA@Example.Test', 'cc'],
    ]);
  });

  test('when an address is only part of another, then that other does not match', async () => {
    expect(subjects((await api.get('/emails?to=aada@example.test')).body)).toEqual(['longer']);
    expect(subjects((await api.get('/emails?to=da@example.test')).body)).toEqual([]);
  });

  test('when combined with status, then both filters apply', async () => {
    expect(subjects((await api.get('/emails?to=ada@example.test&status=canceled')).body)).toEqual(['scheduled']);
    expect(subjects((await api.get('/emails?to=ada@example.test&status=queued')).body)).toEqual(['bcc', 'cc', 'to']);
  });

  test('when paged, then limit and after walk through the matches without repeats or gaps', async () => {
    const first = (await api.get('/emails?to=ada@example.test&limit=3')).body;
    expect(subjects(first)).toEqual(['scheduled', 'bcc', 'cc']);
    expect(first.hasMore).toBe(true);
    const second = (await api.get(`/emails?to=ada@example.test&limit=3&after=${first.data[2].id}`)).body;
    expect(subjects(second)).toEqual(['to']);
    expect(second.hasMore).toBe(false);
  });

  test("when another project sent to the address, then its emails stay out of this project's list", async () => {
    const theirs = (await other.get('/emails?to=ada@example.test')).body;
    expect(theirs.data.map((e: any) => e.id)).toEqual([ids.otherProject]);
  });

  test("when another project's email is asked for, then it and its clicks are 404 not_found; the owner sees an empty clicks list", async () => {
    for (const path of [`/emails/${ids.otherProject}`, `/emails/${ids.otherProject}/clicks`]) {
      const res = await api.get(path);
      expect(res.status).toBe(404);
      expect(res.body).toMatchObject({ name: 'not_found', statusCode: 404 });
    }
    expect((await other.get(`/emails/${ids.otherProject}/clicks`)).body).toEqual({ object: 'list', data: [], hasMore: false });
  });

  test.each([['not-an-address'], ['ada@example.test%2Cbob@example.test'], ['Ada%20%3Cada@example.test%3E'], [`${'a'.repeat(250)}@example.test`]])(
    'when `to` is %s, then 422 validation_error names the field',
    async (value) => {
      const res = await api.get(`/emails?to=${value}`);
      expect(res.status).toBe(422);
      expect(res.body).toMatchObject({ name: 'validation_error', statusCode: 422 });
      expect(res.body.message).toContain('`to`');
    },
  );

  test('when `to` is given twice, then 422 validation_error', async () => {
    const res = await api.get('/emails?to=ada@example.test&to=bob@example.test');
    expect(res.status).toBe(422);
    expect(res.body.name).toBe('validation_error');
  });

  test('when the OpenAPI document is read, then it shows the `to` parameter and every recipient field', async () => {
    const doc = (await t.api.get('/openapi.json')).body;
    const parameters = doc.paths['/emails'].get.parameters.map((p: any) => p.name);
    expect(parameters).toEqual(expect.arrayContaining(['to', 'status', 'limit', 'after']));
    expect(Object.keys(doc.components.schemas.EmailRecipient.properties).sort()).toEqual(['attempts', 'clicks', 'email', 'firstOpenedAt', 'kind', 'lastResponse', 'nextAttemptAt', 'opens', 'status']);
  });
});
