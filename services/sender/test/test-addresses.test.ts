import { startSendingStack, waitForEmail, isFinished, type SendingStack } from '../../../test/support/sending';
import { SmtpSink } from '../../../test/support/smtp-sink';

const base = { from: 'Acme <hello@acme.test>', subject: 'Hello', text: 'Hi there' };
const at = (local: string) => `${local}@sandbox.mailroom.test`;
const types = (email: any) => email.events.map((e: any) => e.type);

describe('test addresses', () => {
  let sink: SmtpSink;
  let s: SendingStack;
  beforeAll(async () => {
    // A real smarthost the sender would use for any other address: test addresses must never reach it.
    sink = await new SmtpSink({ starttls: false }).start();
    s = await startSendingStack('testaddr', { OUTBOUND_SMTP_URL: `smtp://127.0.0.1:${sink.port}` });
  });
  afterAll(async () => {
    await s.close();
    await sink.stop();
  });
  afterEach(() => {
    expect(sink.messages).toHaveLength(0);
  });

  const send = async (to: string) => {
    const { id } = (await s.api.post('/emails', { ...base, to })).body;
    return waitForEmail(s.api, id, isFinished);
  };

  test('when sending to delivered@, then it is delivered with email.sent and email.delivered', async () => {
    const email = await send(at('delivered'));
    expect(email.status).toBe('delivered');
    expect(email.recipients[0]).toMatchObject({ status: 'delivered', attempts: 1, lastResponse: '250 2.0.0 Accepted by the sandbox' });
    expect(types(email)).toEqual(['email.sent', 'email.delivered']);
  });

  test('when sending to bounced@ twice, then both bounce hard with 5.1.1 and the address is never suppressed', async () => {
    for (let i = 0; i < 2; i++) {
      const email = await send(at('bounced'));
      expect(email.status).toBe('bounced');
      expect(email.recipients[0]).toMatchObject({ status: 'bounced', attempts: 1 });
      expect(types(email)).toEqual(['email.sent', 'email.bounced']);
      expect(email.events[1].data).toMatchObject({ bounce: { type: 'hard', code: '5.1.1' }, smtp: { code: 550, enhanced_code: '5.1.1' } });
    }
    expect((await s.api.get(`/suppressions/${at('bounced')}`)).status).toBe(404);
  });

  test('when sending to complained@, then it is delivered, then complained, and never suppressed', async () => {
    const email = await send(at('complained'));
    expect(email.status).toBe('complained');
    expect(email.lastEvent).toBe('email.complained');
    expect(email.recipients[0]).toMatchObject({ status: 'complained', attempts: 1 });
    expect(types(email)).toEqual(['email.sent', 'email.delivered', 'email.complained']);
    expect((await s.api.get(`/suppressions/${at('complained')}`)).status).toBe(404);
    expect((await send(at('complained'))).status).toBe('complained');
  });

  test('when sending to delayed@, then it is delayed once and delivered at its next attempt', async () => {
    const email = await send(at('delayed'));
    expect(email.status).toBe('delivered');
    expect(email.recipients[0]).toMatchObject({ status: 'delivered', attempts: 2 });
    expect(types(email)).toEqual(['email.sent', 'email.delivery_delayed', 'email.delivered']);
    expect(email.events[1].data).toMatchObject({ attempt: 1, smtp: { code: 451 } });
    expect(email.events[2].data.attempt).toBe(2);
  });

  test('when sending to suppressed@, then it records suppressed without an attempt, and no suppression is stored', async () => {
    const email = await send(at('suppressed'));
    expect(email.status).toBe('suppressed');
    expect(email.recipients[0]).toMatchObject({ status: 'suppressed', attempts: 0 });
    expect(types(email)).toEqual(['email.suppressed']);
    expect((await s.api.get(`/suppressions/${at('suppressed')}`)).status).toBe(404);
  });

  test('when a test address was suppressed by hand, then it is still attempted and delivered', async () => {
    await s.t.gateway.ctx.db.suppression.create({ data: { projectId: s.projectId, address: at('delivered+kept'), reason: 'complaint' } });
    const email = await send(at('delivered+kept'));
    expect(email.status).toBe('delivered');
    expect(types(email)).toEqual(['email.sent', 'email.delivered']);
  });

  test('when one email goes to every test address, then each recipient has its own outcome', async () => {
    const to = ['delivered', 'bounced', 'complained', 'delayed', 'suppressed'].map(at);
    const { id } = (await s.api.post('/emails', { ...base, to })).body;
    const email = await waitForEmail(s.api, id, isFinished);
    expect(Object.fromEntries(email.recipients.map((r: any) => [r.email, r.status]))).toEqual({
      [at('delivered')]: 'delivered',
      [at('bounced')]: 'bounced',
      [at('complained')]: 'complained',
      [at('delayed')]: 'delivered',
      [at('suppressed')]: 'suppressed',
    });
    expect(email.status).toBe('complained');
  });
});
