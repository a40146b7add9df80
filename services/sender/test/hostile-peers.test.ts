import { createPrivateKey, generateKeyPairSync } from 'node:crypto';
import { once } from 'node:events';
import { type AddressInfo, createServer, type Socket } from 'node:net';
import type { Logger } from '@mailroom/core';
import { dkimVerify } from 'mailauth';
import { DnsServer, type DnsZone } from '../../../test/support/dns-server';
import { SmtpSink } from '../../../test/support/smtp-sink';
import { Deliverer, type DelivererOptions, type DeliveryOutcome } from '../src/delivery';
import { MessageSkeleton } from '../src/message/build-skeleton';
import { MessageSigner } from '../src/message/sign-dkim';
import type { OutgoingEmail } from '../src/send-store';

/** What a scripted peer does: send these bytes, hang up, or send nothing. */
type Action = string | { close: true } | { silent: true };

/**
 * Decides the action for one command line as received; 'DOT' stands for the end of the message
 * data, 'TLS' for bytes received after a 220 to STARTTLS (the client's handshake).
 */
type Script = (command: string) => Action;

interface ScriptedPeer {
  port: number;
  /** Every command line received, over every connection. */
  commands: string[];
  /** Message data received, one entry per final dot, dot-stuffing left as is. */
  messages: Buffer[];
  stop(): Promise<void>;
}

/**
 * A raw TCP SMTP peer on 127.0.0.1 that answers exactly as scripted, for what smtp-server
 * cannot do: hang up after the final dot, answer STARTTLS and then speak no TLS, reply with
 * arbitrary bytes.
 */
async function scriptedPeer(greeting: Action, script: Script): Promise<ScriptedPeer> {
  const sockets = new Set<Socket>();
  const commands: string[] = [];
  const messages: Buffer[] = [];
  const server = createServer((socket) => {
    sockets.add(socket);
    socket.on('error', () => undefined);
    socket.on('close', () => sockets.delete(socket));
    const act = (action: Action) => {
      if (typeof action === 'string') socket.write(action);
      else if ('close' in action) socket.destroy();
    };
    let buffered = Buffer.alloc(0);
    let state: 'commands' | 'data' | 'tls' = 'commands';
    socket.on('data', (chunk: Buffer) => {
      if (state === 'tls') return act(script('TLS'));
      buffered = Buffer.concat([buffered, chunk]);
      for (;;) {
        if (state === 'data') {
          const end = buffered.indexOf('\r\n.\r\n');
          if (end < 0) return;
          messages.push(buffered.subarray(0, end + 2));
          buffered = buffered.subarray(end + 5);
          state = 'commands';
          act(script('DOT'));
          continue;
        }
        const eol = buffered.indexOf('\r\n');
        if (eol < 0) return;
        const line = buffered.subarray(0, eol).toString('latin1');
        buffered = buffered.subarray(eol + 2);
        commands.push(line);
        const action = script(line);
        if (typeof action === 'string' && /^DATA$/i.test(line) && action.startsWith('354')) state = 'data';
        if (typeof action === 'string' && /^STARTTLS$/i.test(line) && action.startsWith('220')) state = 'tls';
        act(action);
      }
    });
    act(greeting);
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return {
    port: (server.address() as AddressInfo).port,
    commands,
    messages,
    stop: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** A peer that accepts everything (354 to DATA), with `ehlo` as its EHLO reply, unless `override` says otherwise. */
const accepting =
  (override: (command: string) => Action | undefined, ehlo = '250 peer.test\r\n'): Script =>
  (command) => {
    const action = override(command);
    if (action !== undefined) return action;
    if (/^EHLO /i.test(command)) return ehlo;
    if (/^DATA$/i.test(command)) return '354 End data with <CR><LF>.<CR><LF>\r\n';
    if (/^QUIT$/i.test(command)) return '221 2.0.0 Bye\r\n';
    return '250 2.0.0 OK\r\n';
  };

const silentLogger = (): Logger => {
  const noop = () => undefined;
  const make = (): unknown => ({ child: make, trace: noop, debug: noop, info: noop, warn: noop, error: noop, fatal: noop });
  return make() as Logger;
};

const RAW = Buffer.from('From: a@mailroom.test\r\nTo: x@example.test\r\nSubject: hostile\r\nMessage-ID: <h@mailroom.test>\r\n\r\nHello.\r\n');

const MX_ZONE: DnsZone = {
  'example.test': { MX: [{ preference: 10, exchange: 'mx.example.test' }] },
  'mx.example.test': { A: ['127.0.0.1'] },
};

describe('delivery against hostile SMTP peers', () => {
  const cleanups: Array<() => Promise<void>> = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });

  async function peer(greeting: Action, script: Script): Promise<ScriptedPeer> {
    const started = await scriptedPeer(greeting, script);
    cleanups.push(started.stop);
    return started;
  }

  function deliverer(options: Partial<DelivererOptions> & Pick<DelivererOptions, 'mxPort'>): Deliverer {
    const instance = new Deliverer({ allowPrivateNetworks: true, heloName: 'sender.mailroom.test', logger: silentLogger(), connectionTimeoutMs: 2_000, ...options });
    cleanups.push(() => instance.close());
    return instance;
  }

  const relay = (port: number) => deliverer({ mxPort: 1, outboundSmtpUrl: `smtp://127.0.0.1:${port}` });

  async function direct(port: number): Promise<Deliverer> {
    const nameServer = await new DnsServer({ zone: MX_ZONE }).start();
    cleanups.push(() => nameServer.stop());
    return deliverer({ mxPort: port, dnsServers: [nameServer.address] });
  }

  const deliver = (d: Deliverer, raw: Buffer | readonly Buffer[] = RAW): Promise<DeliveryOutcome> =>
    d.deliver({ envelopeFrom: 'bounces@mailroom.test', recipient: 'x@example.test', raw });

  it.each([
    ['530 5.7.0 Authentication required'],
    ['530 5.7.0 Must issue a STARTTLS command first'],
  ])('when the smarthost answers MAIL FROM with "%s", then it is deferred, not bounced: no recipient is at fault', async (reply) => {
    const smarthost = await peer('220 relay.test ESMTP\r\n', accepting((c) => (/^MAIL FROM/i.test(c) ? `${reply}\r\n` : undefined)));

    const outcome = await deliver(relay(smarthost.port));

    expect(outcome).toMatchObject({ kind: 'deferred', smtp: { code: 530, enhancedCode: '5.7.0' } });
    expect(smarthost.messages).toHaveLength(0);
  });

  it('when the reply after the final dot is a 250 with 200 KB of text, then it is delivered and only 1000 characters of it are kept', async () => {
    const smarthost = await peer('220 relay.test ESMTP\r\n', accepting((c) => (c === 'DOT' ? `250 2.0.0 ${'q'.repeat(200_000)}\r\n` : undefined)));

    const outcome = await deliver(relay(smarthost.port));

    expect(outcome).toMatchObject({ kind: 'delivered', smtp: { code: 250, enhancedCode: '2.0.0' } });
    expect(outcome.smtp?.message).toBe('q'.repeat(1000));
  });

  it('when the MX hangs up after the final dot without replying, then it is deferred without a reply (the retry may deliver it twice)', async () => {
    const mx = await peer('220 mx.test ESMTP\r\n', accepting((c) => (c === 'DOT' ? { close: true } : undefined)));

    const outcome = await deliver(await direct(mx.port));

    expect(outcome).toMatchObject({ kind: 'deferred', smtp: null });
    expect(mx.messages).toHaveLength(1);
  });

  it.each([
    ['answers the handshake with plaintext', '250 2.0.0 this is not TLS\r\n'],
    // A TLS alert record: handshake_failure (40), fatal.
    ['answers the handshake with a fatal alert', Buffer.from([0x15, 0x03, 0x03, 0x00, 0x02, 0x02, 0x28]).toString('latin1')],
  ])('when the MX offers STARTTLS and then %s, then the message goes to that MX again in plaintext', async (_name, tlsReply) => {
    const mx = await peer(
      '220 mx.test ESMTP\r\n',
      accepting(
        (c) => {
          if (c === 'TLS') return tlsReply;
          if (/^STARTTLS$/i.test(c)) return '220 2.0.0 Ready to start TLS\r\n';
          return undefined;
        },
        '250-mx.test\r\n250 STARTTLS\r\n',
      ),
    );

    const outcome = await deliver(await direct(mx.port));

    expect(outcome).toMatchObject({ kind: 'delivered', host: 'mx.example.test', smtp: { code: 250 } });
    expect(mx.messages).toHaveLength(1);
    expect(mx.commands.filter((c) => /^STARTTLS$/i.test(c))).toHaveLength(1);
    expect(mx.commands.filter((c) => /^EHLO /i.test(c))).toHaveLength(2);
  });

  it('when the text and HTML contain bare CRs, then the DKIM signature still verifies on what the server received', async () => {
    const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    const key = { domain: 'acme.test', selector: 's1', privateKey: createPrivateKey(privateKey.export({ type: 'pkcs8', format: 'pem' })) };
    const record = `v=DKIM1; k=rsa; p=${publicKey.export({ type: 'spki', format: 'der' }).toString('base64')}`;
    const email: OutgoingEmail = {
      id: 'em_1', projectId: 'proj_1', from: 'Acme <hello@acme.test>', fromAddress: 'hello@acme.test', to: ['x@example.test'], cc: [], replyTo: [],
      subject: 'Old Mac line breaks', html: '<p>one\rtwo</p>\r\r\n<p>three</p>', text: 'one\rtwo\r\n\rthree\r', headers: {}, tags: [],
      messageId: 'em_1@acme.test', trackOpens: false, trackClicks: false, hasAttachments: false, due: [], suppressed: [],
    };
    const sink = await new SmtpSink({ starttls: false }).start();
    cleanups.push(() => sink.stop());
    const d = relay(sink.port);
    const signer = new MessageSigner(key);
    const verify = async (raw: Buffer) =>
      // mailauth 4.13 takes a resolver; its bundled types describe the options loosely.
      (await dkimVerify(raw, { resolver: async () => [[record]] } as unknown as Parameters<typeof dkimVerify>[1])).results.map((r) => r.status.result);

    for (const varyHtml of [false, true]) {
      const skeleton = await MessageSkeleton.build(email, [], { varyHtml });
      const raw = await skeleton.forRecipient({ id: 'rcpt_1', address: 'x@example.test' }, varyHtml ? (html) => `${html}<img src="https://t.test/o/1">` : undefined);
      expect((await deliver(d, await signer.sign(raw))).kind).toBe('delivered');
    }

    const received = await sink.waitFor(2);
    for (const message of received) expect(await verify(message.raw)).toEqual(['pass']);
  });
});
