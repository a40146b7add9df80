import { once } from 'node:events';
import { connect, type Socket } from 'node:net';

export interface ReceiveSettings {
  connections: number;
  warmupSeconds: number;
  durationSeconds: number;
}

export interface ReceiveResult {
  /** Messages answered 250 per second over the measured window (after the warm-up). */
  perSecond: number;
  accepted: number;
  /** Messages answered 250 from the first connection on, warm-up included (what the CPU time is spent on). */
  answered: number;
  refused: number;
  firstError?: string;
}

/** A realistic small message (3,835 bytes): headers as a mail client writes them, a text and an HTML part. */
export function benchMessage(to: string): Buffer {
  const paragraph = 'Thanks for getting back to me. I looked at the numbers you sent and they line up with what we saw last quarter; ';
  const text = Array.from({ length: 14 }, () => paragraph).join('\r\n');
  const html = `<html><body>${Array.from({ length: 14 }, () => `<p>${paragraph}</p>`).join('\r\n')}</body></html>`;
  return Buffer.from(
    [
      'Received: from mail.example.test (mail.example.test [192.0.2.10]) by mx.bench.test with ESMTPS; Mon, 24 Nov 2025 10:00:00 +0000',
      'From: Ann Example <ann@example.test>',
      `To: <${to}>`,
      'Subject: Re: quarterly numbers',
      'Date: Mon, 24 Nov 2025 10:00:00 +0000',
      'Message-ID: <bench-message@example.test>',
      'In-Reply-To: <earlier@bench.test>',
      'MIME-Version: 1.0',
      'Content-Type: multipart/alternative; boundary="b1"',
      '',
      '--b1',
      'Content-Type: text/plain; charset=utf-8',
      '',
      text,
      '--b1',
      'Content-Type: text/html; charset=utf-8',
      '',
      html,
      '--b1--',
      '',
    ].join('\r\n'),
  );
}

/** One SMTP client connection that reads replies in order (PIPELINING). */
class Client {
  private buffer = '';
  private readonly waiting: ((reply: string) => void)[] = [];

  constructor(private readonly socket: Socket) {
    socket.setEncoding('latin1');
    socket.setNoDelay(true);
    socket.on('data', (chunk: string) => {
      this.buffer += chunk;
      for (;;) {
        const match = /^(?:\d{3}-[^\n]*\n)*\d{3}(?: [^\n]*)?\r?\n/.exec(this.buffer);
        if (!match) break;
        this.buffer = this.buffer.slice(match[0].length);
        this.waiting.shift()?.(match[0].trimEnd());
      }
    });
    socket.on('error', () => undefined);
    socket.on('close', () => {
      for (const w of this.waiting.splice(0)) w('closed');
    });
  }

  reply(): Promise<string> {
    return new Promise((resolve) => this.waiting.push(resolve));
  }

  write(data: string | Buffer): void {
    this.socket.write(data);
  }
}

/**
 * Sends the same message over `connections` reused connections as fast as the server answers,
 * each pipelining MAIL, RCPT and DATA, for the warm-up and then the measured window.
 */
export async function measureReceive(port: number, to: string, settings: ReceiveSettings): Promise<ReceiveResult> {
  const body = Buffer.concat([benchMessage(to), Buffer.from('.\r\n')]);
  const envelope = `MAIL FROM:<ann@example.test>\r\nRCPT TO:<${to}>\r\nDATA\r\n`;
  const start = performance.now();
  const measureFrom = start + settings.warmupSeconds * 1000;
  const end = measureFrom + settings.durationSeconds * 1000;
  let accepted = 0;
  let answered = 0;
  let refused = 0;
  let firstError: string | undefined;
  const fail = (reply: string) => {
    refused++;
    firstError ??= reply;
  };

  const run = async () => {
    const socket = connect({ port, host: '127.0.0.1' });
    await once(socket, 'connect');
    const client = new Client(socket);
    if (!(await client.reply()).startsWith('220')) return fail('no greeting');
    const ehlo = client.reply();
    client.write('EHLO bench.example.test\r\n');
    await ehlo;
    while (performance.now() < end) {
      const replies = [client.reply(), client.reply(), client.reply()];
      client.write(envelope);
      const [mail, rcpt, data] = await Promise.all(replies);
      if (!data?.startsWith('354')) {
        fail(`${mail} / ${rcpt} / ${data}`);
        if (data === 'closed') return;
        continue;
      }
      const done = client.reply();
      client.write(body);
      const reply = await done;
      const now = performance.now();
      if (!reply.startsWith('250')) fail(reply);
      else {
        answered++;
        if (now >= measureFrom && now < end) accepted++;
      }
      if (reply === 'closed') return;
    }
    client.write('QUIT\r\n');
    socket.end();
  };
  await Promise.all(Array.from({ length: settings.connections }, run));
  return { perSecond: accepted / settings.durationSeconds, accepted, answered, refused, firstError };
}
