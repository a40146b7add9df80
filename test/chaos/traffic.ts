import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import nodemailer from 'nodemailer';
import type { SmtpSink } from '../support/smtp-sink';

// A request slower than this counts as a hang: every documented timeout in its path is shorter.
export const HANG_MS = 10_000;

/** One answer a client got: an HTTP status or an SMTP reply code (0: no answer at all), and when. */
export interface Answer {
  kind: 'send' | 'inbound' | 'open' | 'click' | 'readyz';
  status: number;
  body: string;
  ms: number;
  at: number;
}

export interface Send {
  n: number;
  subject: string;
  body: Record<string, unknown>;
  idempotencyKey: string | null;
  /** The email's id once some attempt answered 200. */
  id: string | null;
  answers: Answer[];
}

export interface Inbound {
  messageId: string;
  to: string;
  answer: Answer | null;
}

/** A webhook receiver that answers 200 and keeps the `webhook-id` of every request. */
export class WebhookReceiver {
  readonly eventIds = new Map<string, number>();
  private server: Server | null = null;

  async start(): Promise<this> {
    this.server = createServer((req, res) => {
      const id = req.headers['webhook-id'];
      req.resume();
      req.on('end', () => {
        if (typeof id === 'string') this.eventIds.set(id, (this.eventIds.get(id) ?? 0) + 1);
        res.writeHead(200).end('ok');
      });
    });
    this.server.listen(0, '127.0.0.1');
    await once(this.server, 'listening');
    return this;
  }

  get url(): string {
    return `http://127.0.0.1:${(this.server!.address() as AddressInfo).port}/hook`;
  }

  stop(): Promise<void> {
    this.server?.closeAllConnections();
    return new Promise((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }
}

/** The tracking URLs (`/o/…`, `/c/…`) in a message the sink took, its quoted-printable undone. */
export function trackingUrls(raw: Buffer, base: string): string[] {
  const text = raw
    .toString('latin1')
    .replace(/=\r?\n/g, '')
    .replace(/=([0-9A-F]{2})/g, (_, hex: string) => String.fromCharCode(Number.parseInt(hex, 16)));
  const escaped = base.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return [...text.matchAll(new RegExp(`${escaped}/[oc]/[A-Za-z0-9_.~-]+`, 'g'))].map((m) => m[0]);
}

/** Message-ID (without brackets) and recipients of every message the sink took. */
export function sinkDeliveries(sink: SmtpSink): Map<string, number> {
  const counts = new Map<string, number>();
  for (const message of sink.messages) {
    const head = message.raw.toString('latin1', 0, Math.min(message.raw.length, 8192));
    const id = /^Message-ID:\s*<([^>]+)>/im.exec(head)?.[1] ?? '?';
    for (const recipient of message.recipients) {
      const key = `${id} ${recipient.toLowerCase()}`;
      counts.set(key, (counts.get(key) ?? 0) + 1);
    }
  }
  return counts;
}

async function timed(kind: Answer['kind'], work: (signal: AbortSignal) => Promise<{ status: number; body: string }>): Promise<Answer> {
  const started = Date.now();
  try {
    const { status, body } = await work(AbortSignal.timeout(HANG_MS * 2));
    return { kind, status, body, ms: Date.now() - started, at: started };
  } catch (err) {
    return { kind, status: 0, body: String(err), ms: Date.now() - started, at: started };
  }
}

export interface TrafficOptions {
  apiUrl: string;
  token: string;
  smtpPort: number;
  trackingBase: string;
  sink: SmtpSink;
  /** Where each service answers /readyz. */
  readyz: Record<string, string>;
}

/**
 * Steady traffic against every service at once, recording every answer: sends (every other one
 * with an Idempotency-Key), inbound messages over SMTP, opens and clicks of delivered mail, and
 * each service's /readyz.
 */
export class Traffic {
  readonly sends: Send[] = [];
  readonly inbound: Inbound[] = [];
  /** Tracking answers that were 200/302, per tracked URL kind and email: the events they owe. */
  readonly engagements: { url: string; answer: Answer }[] = [];
  readonly trackingAnswers: Answer[] = [];
  readonly readiness: Record<string, Answer[]> = {};
  private running = false;
  private loops: Promise<void>[] = [];
  private counter = 0;

  constructor(private readonly options: TrafficOptions, private readonly label: string) {}

  start(): void {
    this.running = true;
    this.loops = [
      this.every(150, () => this.send()),
      this.every(250, () => this.receive()),
      this.every(100, () => this.track()),
      ...Object.entries(this.options.readyz).map(([name, url]) => this.every(250, () => this.probe(name, url))),
    ];
  }

  async stop(): Promise<void> {
    this.running = false;
    await Promise.all(this.loops);
  }

  /** Runs `step` every `ms`, several at once when answers are slow, until stopped. */
  private async every(ms: number, step: () => Promise<void>): Promise<void> {
    const inFlight = new Set<Promise<void>>();
    while (this.running) {
      const p = step().finally(() => inFlight.delete(p));
      inFlight.add(p);
      await new Promise((resolve) => setTimeout(resolve, ms));
    }
    await Promise.all(inFlight);
  }

  private async send(): Promise<void> {
    const n = this.counter++;
    const subject = `${this.label} send ${n}`;
    const send: Send = {
      n,
      subject,
      idempotencyKey: n % 2 === 0 ? `${this.label}-key-${n}` : null,
      body: {
        from: 'Acme <hello@acme.test>',
        to: `r${n}-${this.label}@example.test`,
        subject,
        html: `<p>Hello <a href="https://example.com/${this.label}/${n}">there</a></p>`,
        trackOpens: true,
        trackClicks: true,
      },
      id: null,
      answers: [],
    };
    this.sends.push(send);
    await this.attemptSend(send);
  }

  /** One attempt of a send, as a client makes it (a retry repeats the same key and body). */
  async attemptSend(send: Send): Promise<Answer> {
    const headers: Record<string, string> = { authorization: `Bearer ${this.options.token}`, 'content-type': 'application/json' };
    if (send.idempotencyKey) headers['idempotency-key'] = send.idempotencyKey;
    const answer = await timed('send', async (signal) => {
      const res = await fetch(`${this.options.apiUrl}/emails`, { method: 'POST', headers, body: JSON.stringify(send.body), signal });
      return { status: res.status, body: await res.text() };
    });
    send.answers.push(answer);
    if (answer.status === 200) send.id = (JSON.parse(answer.body) as { id: string }).id;
    return answer;
  }

  private async receive(): Promise<void> {
    const n = this.counter++;
    const inbound: Inbound = { messageId: `<${this.label}-in-${n}@chaos.test>`, to: `in${n}@inbound.test`, answer: null };
    this.inbound.push(inbound);
    const transport = nodemailer.createTransport({
      host: '127.0.0.1',
      port: this.options.smtpPort,
      secure: false,
      ignoreTLS: true,
      connectionTimeout: HANG_MS,
      greetingTimeout: HANG_MS,
      socketTimeout: HANG_MS * 2,
    });
    inbound.answer = await timed('inbound', async () => {
      try {
        const info = await transport.sendMail({
          from: 'Bob <bob@remote.test>',
          to: inbound.to,
          subject: `${this.label} inbound ${n}`,
          text: 'Hello',
          messageId: inbound.messageId,
        });
        return { status: Number.parseInt(info.response, 10), body: info.response };
      } catch (err) {
        const e = err as { responseCode?: number; response?: string; message: string };
        return { status: e.responseCode ?? 0, body: e.response ?? e.message };
      } finally {
        transport.close();
      }
    });
  }

  private async track(): Promise<void> {
    const messages = this.options.sink.messages;
    if (messages.length === 0) return;
    const message = messages[Math.floor(Math.random() * messages.length)]!;
    const urls = trackingUrls(message.raw, this.options.trackingBase);
    const url = urls[Math.floor(Math.random() * urls.length)];
    if (!url) return;
    const kind = url.includes('/o/') ? 'open' : 'click';
    const answer = await timed(kind, async (signal) => {
      const res = await fetch(url, { redirect: 'manual', signal });
      // The GIF or the redirect's body is read and dropped; only an error's JSON is kept.
      const body = await res.text();
      return { status: res.status, body: res.status >= 400 ? body : '' };
    });
    this.trackingAnswers.push(answer);
    if (answer.status === 200 || answer.status === 302) this.engagements.push({ url, answer });
  }

  private async probe(name: string, url: string): Promise<void> {
    const answer = await timed('readyz', async (signal) => {
      const res = await fetch(url, { signal });
      return { status: res.status, body: await res.text() };
    });
    const answers = this.readiness[name] ?? [];
    answers.push(answer);
    this.readiness[name] = answers;
  }
}
