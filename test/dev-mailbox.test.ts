import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { join } from 'node:path';
import { DevMailbox } from '../scripts/lib/dev-mailbox/dev-mailbox';
import { type SendingStack, startSendingStack, waitForEmail } from './support/sending';

const ROOT = join(__dirname, '..');

describe('pnpm dev:mailbox', () => {
  test('when started, then it prints the OUTBOUND_SMTP_URL to use and where to read the mail', async () => {
    const child = spawn(process.execPath, ['--import', require.resolve('tsx'), 'scripts/dev-mailbox.ts', '--smtp-port', '0', '--http-port', '0'], {
      cwd: ROOT,
      env: { PATH: process.env.PATH ?? '' },
    });
    let stdout = '';
    child.stdout.setEncoding('utf8').on('data', (s: string) => (stdout += s));
    try {
      const deadline = Date.now() + 15_000;
      while (!stdout.includes('Ctrl-C') && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
      expect(stdout).toMatch(/OUTBOUND_SMTP_URL=smtp:\/\/127\.0\.0\.1:\d+ pnpm start/);
      const viewer = /read it at (http:\/\/127\.0\.0\.1:\d+)/.exec(stdout)?.[1];
      expect((await fetch(`${viewer}/messages.json`)).status).toBe(200);
    } finally {
      child.kill('SIGINT');
      const [code] = await once(child, 'close');
      expect(code).toBe(0);
    }
  }, 20_000);

  describe('when Mailroom sends through it with the printed OUTBOUND_SMTP_URL', () => {
    const mailbox = new DevMailbox({ smtpPort: 0, httpPort: 0 });
    let stack: SendingStack;
    let emailId = '';
    let caught: { id: string; subject: string; envelope: { rcptTo: string[] } } | undefined;

    beforeAll(async () => {
      await mailbox.start();
      stack = await startSendingStack('dev_mailbox', { OUTBOUND_SMTP_URL: mailbox.smtpUrl });
      const sent = await stack.api.post('/emails', {
        from: 'Acme <hello@acme.example>',
        to: 'alice@example.com',
        subject: 'Welcome <b>Alice</b>',
        text: 'Hi Alice',
        html: '<p id="greeting">Hi Alice</p><script>parent.document.title = "owned"</script>',
      });
      expect(sent.status).toBe(200);
      emailId = sent.body.id;
    }, 30_000);

    afterAll(async () => {
      await stack?.close();
      await mailbox.stop();
    });

    test('then the email is delivered at the first attempt, in plain SMTP with no certificate to trust', async () => {
      const email = await waitForEmail(stack.api, emailId, (e) => e.status === 'delivered');
      expect(email.events.filter((e: { type: string }) => e.type === 'email.delivery_delayed')).toEqual([]);
    });

    test('then the viewer lists it over HTTP with its envelope recipient and subject', async () => {
      const list = (await (await fetch(`${mailbox.viewerUrl}/messages.json`)).json()) as NonNullable<typeof caught>[];
      caught = list.find((m) => m.subject === 'Welcome <b>Alice</b>');
      expect(caught?.envelope.rcptTo).toEqual(['alice@example.com']);
      const index = await (await fetch(`${mailbox.viewerUrl}/`)).text();
      expect(index).toContain('Welcome &lt;b&gt;Alice&lt;/b&gt;');
      expect(index).not.toContain('<b>Alice</b>');
    });

    test("then a message's page shows its headers and text, and its HTML only inside a sandboxed frame", async () => {
      const res = await fetch(`${mailbox.viewerUrl}/messages/${caught?.id}`);
      const page = await res.text();
      expect(res.headers.get('content-security-policy')).toMatch(/default-src 'none'/);
      expect(page).toContain('Hi Alice');
      expect(page).toMatch(/<th>X-Mailroom-Email-Id<\/th>|<th>Message-ID<\/th>/i);
      expect(page).toContain(`<iframe sandbox src="/messages/${caught?.id}/html"`);
      expect(page).not.toContain('<script');

      const html = await fetch(`${mailbox.viewerUrl}/messages/${caught?.id}/html`);
      // The HTML is the message's own, script included, but served into a sandbox: no scripts run, no origin.
      expect(await html.text()).toContain('<p id="greeting">Hi Alice</p>');
      expect(html.headers.get('content-security-policy')).toMatch(/^sandbox; default-src 'none'/);
      expect(html.headers.get('x-content-type-options')).toBe('nosniff');
    });
  });
});
