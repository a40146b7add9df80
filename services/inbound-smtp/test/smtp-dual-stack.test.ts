import { createTransport } from 'nodemailer';
import { message, seedProject, startTestMx, storedRows, type TestMx } from './smtp-support';

// The MX listens as production starts it (no host given): on every address, IPv6 and IPv4, so a
// peer that finds it by an AAAA record delivers over IPv6, and an IPv4 peer still does.
describe('the MX on every address', () => {
  let t: TestMx;

  beforeAll(async () => {
    t = await startTestMx({ label: 'smtpdualstack', everyAddress: true });
    await seedProject(t.pool, ['support@acme.test']);
  });
  afterAll(() => t.close());

  test.each([
    ['IPv6', '::1', '::1'],
    ['IPv4', '127.0.0.1', '127.0.0.1'],
  ])('when a peer delivers over %s, then 250 and the row keeps its address as the peer has it (an IPv4 one never as ::ffff:)', async (_family, host, stored) => {
    await t.pool.query({ text: 'DELETE FROM received_emails' });
    const transport = createTransport({ host, port: t.mx.port, secure: false, ignoreTLS: true, name: 'client.example.test' });
    const info = await transport.sendMail({ envelope: { from: 'ann@example.test', to: ['support@acme.test'] }, raw: message(`Over ${host}`) });
    expect(info.response).toMatch(/^250 /);
    expect((await storedRows(t.pool)).map((r) => r.remote_address)).toEqual([stored]);
  });
});
