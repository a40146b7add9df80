import { execFile } from 'node:child_process';
import { chmodSync, chownSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '../../scripts/lib/free-port';
import { selfSignedCertificate } from './certificate';

/**
 * A private Postfix instance (Debian's `postfix` package: `apt-get install -y postfix`) for
 * tests that need a real MTA as the peer of Mailroom's MX and sender. Everything lives in a
 * temporary folder: its own `config_directory`, `queue_directory` and `data_directory`, its
 * log (`maillog_file`) and its virtual mailboxes. It listens only on 127.0.0.1 at a high port,
 * never resolves DNS (next hops are `[ip]:port` from a transport map), and is started with
 * `postfix -c <dir> start`, so the machine's own Postfix (its `/etc/postfix`, port 25) is never
 * touched. Postfix's master must start as root (it drops to the `postfix` user itself).
 */
export interface PostfixOptions {
  /** `myhostname`: the name in its greeting, its EHLO and its Received headers. */
  hostname: string;
  /** Port of its SMTP server on 127.0.0.1; a free one when not given. */
  port?: number;
  /** Destination domain → next hop `host:port`, as a transport map `smtp:[host]:port`. */
  relays?: Record<string, string>;
  /** A virtual mailbox domain: its mail is delivered by Postfix itself into maildirs. */
  mailboxDomain?: string;
  /**
   * Local parts of `mailboxDomain` that have a mailbox. Any other local part there is
   * accepted at RCPT (`smtpd_reject_unlisted_recipient = no`) and then bounced by Postfix with
   * 5.1.1, so Postfix itself writes and sends the delivery status notification.
   */
  mailboxes?: string[];
  /**
   * Speak TLS as real MTAs do: its SMTP server offers STARTTLS with a self-signed certificate
   * for `hostname`, and its SMTP client uses STARTTLS wherever it is offered (unverified).
   */
  tls?: boolean;
  /** More main.cf settings, overriding the defaults here (e.g. `delay_warning_time`). */
  settings?: Record<string, string>;
}

const SBIN = ['/usr/sbin', '/usr/local/sbin', '/sbin'];
// Debian's postfix runs virtual deliveries as this (nobody) rather than as a mail owner.
const MAILBOX_UID = 65534;

function command(name: string): string {
  for (const dir of SBIN) if (existsSync(join(dir, name))) return join(dir, name);
  return name;
}

function run(name: string, args: string[], timeoutMs = 20_000): Promise<{ code: number; output: string }> {
  return new Promise((resolve, reject) => {
    execFile(command(name), args, { timeout: timeoutMs }, (error, stdout, stderr) => {
      const e = error as (NodeJS.ErrnoException & { code?: string | number }) | null;
      if (e && e.code === 'ENOENT') {
        reject(new Error(`${name} is not installed: \`DEBIAN_FRONTEND=noninteractive apt-get install -y postfix\``));
        return;
      }
      resolve({ code: e ? (typeof e.code === 'number' ? e.code : 1) : 0, output: `${stdout}${stderr}` });
    });
  });
}

/** One message Postfix delivered into a maildir. */
export interface MaildirMessage {
  file: string;
  raw: Buffer;
}

export class PrivatePostfix {
  private stopped = false;

  private constructor(
    /** The temporary folder holding everything of this instance. */
    readonly dir: string,
    readonly port: number,
    readonly hostname: string,
    private readonly mailboxDomain: string | undefined,
  ) {}

  get configDirectory(): string {
    return join(this.dir, 'conf');
  }

  static async start(options: PostfixOptions): Promise<PrivatePostfix> {
    if (typeof process.getuid === 'function' && process.getuid() !== 0) {
      throw new Error('a private Postfix instance must be started as root (its master drops to the postfix user itself)');
    }
    const dir = mkdtempSync(join(tmpdir(), 'mailroom-postfix-'));
    // Postfix's daemons run as the postfix user and nobody, and must reach their folders.
    chmodSync(dir, 0o755);
    const port = options.port ?? (await freePort());
    const postfix = new PrivatePostfix(dir, port, options.hostname, options.mailboxDomain);
    postfix.writeConfig(options);
    const started = await run('postfix', ['-c', postfix.configDirectory, 'start']);
    if (started.code !== 0) {
      const log = postfix.log();
      rmSync(dir, { recursive: true, force: true });
      throw new Error(`postfix -c ${postfix.configDirectory} start failed (${started.code}): ${started.output}\n${log}`);
    }
    try {
      await postfix.waitForGreeting(10_000);
    } catch (err) {
      await postfix.stop();
      throw err;
    }
    return postfix;
  }

  private writeConfig(options: PostfixOptions): void {
    const conf = this.configDirectory;
    mkdirSync(conf);
    mkdirSync(join(this.dir, 'queue'));
    const mail = join(this.dir, 'mail');
    mkdirSync(mail);
    chownSync(mail, MAILBOX_UID, MAILBOX_UID);
    // texthash: maps are read as text at process start (no postmap, no database files).
    const transport = Object.entries(options.relays ?? {}).map(([domain, hop]) => {
      const at = hop.lastIndexOf(':');
      return `${domain} smtp:[${hop.slice(0, at)}]:${hop.slice(at + 1)}\n`;
    });
    writeFileSync(join(conf, 'transport'), transport.join(''));
    const domain = options.mailboxDomain;
    writeFileSync(join(conf, 'mailboxes'), (options.mailboxes ?? []).map((local) => `${local}@${domain} ${domain}/${local}/\n`).join(''));
    const tls = options.tls ? selfSignedCertificate(conf, options.hostname) : null;
    const main = {
      compatibility_level: '3.6',
      config_directory: conf,
      queue_directory: join(this.dir, 'queue'),
      // Created by `postfix start` (owned by postfix); holds master.lock, so it must be our own.
      data_directory: join(this.dir, 'data'),
      maillog_file: join(this.dir, 'maillog'),
      maillog_file_prefixes: this.dir,
      myhostname: options.hostname,
      mydomain: options.hostname.split('.').slice(1).join('.') || options.hostname,
      myorigin: '$myhostname',
      mydestination: '',
      inet_interfaces: '127.0.0.1',
      inet_protocols: 'ipv4',
      mynetworks: '127.0.0.0/8',
      smtpd_relay_restrictions: 'permit_mynetworks, reject_unauth_destination',
      // No local(8) users, aliases or NIS: nothing of the machine's own mail setup.
      local_recipient_maps: '',
      alias_maps: '',
      alias_database: '',
      // No DNS at all: next hops are [ip]:port, client names are not looked up.
      disable_dns_lookups: 'yes',
      smtp_host_lookup: 'native',
      smtpd_peername_lookup: 'no',
      transport_maps: `texthash:${join(conf, 'transport')}`,
      virtual_mailbox_domains: domain ?? '',
      virtual_mailbox_base: mail,
      virtual_mailbox_maps: `texthash:${join(conf, 'mailboxes')}`,
      virtual_uid_maps: `static:${MAILBOX_UID}`,
      virtual_gid_maps: `static:${MAILBOX_UID}`,
      smtpd_reject_unlisted_recipient: 'no',
      // Short retry times, so a test can wait for deferrals and bounces.
      queue_run_delay: '1s',
      minimal_backoff_time: '1s',
      maximal_backoff_time: '2s',
      maximal_queue_lifetime: '1m',
      bounce_queue_lifetime: '$maximal_queue_lifetime',
      delay_warning_time: '0h',
      smtp_connect_timeout: '5s',
      smtp_tls_security_level: tls ? 'may' : 'none',
      smtpd_tls_security_level: tls ? 'may' : 'none',
      ...(tls ? { smtpd_tls_cert_file: tls.certFile, smtpd_tls_key_file: tls.keyFile, smtpd_tls_loglevel: '1', smtp_tls_loglevel: '1' } : {}),
      biff: 'no',
      ...options.settings,
    };
    writeFileSync(join(conf, 'main.cf'), Object.entries(main).map(([k, v]) => `${k} = ${v}\n`).join(''));
    // master.cf: Debian's services, none chrooted (the chroot would need a copy of /etc and libs).
    const services = [
      `127.0.0.1:${this.port} inet n - n - - smtpd`,
      'pickup unix n - n 60 1 pickup',
      'cleanup unix n - n - 0 cleanup',
      'tlsmgr unix - - n 1000? 1 tlsmgr',
      'qmgr unix n - n 300 1 qmgr',
      'rewrite unix - - n - - trivial-rewrite',
      'bounce unix - - n - 0 bounce',
      'defer unix - - n - 0 bounce',
      'trace unix - - n - 0 bounce',
      'verify unix - - n - 1 verify',
      'flush unix n - n 1000? 0 flush',
      'proxymap unix - - n - - proxymap',
      'proxywrite unix - - n - 1 proxymap',
      'smtp unix - - n - - smtp',
      'relay unix - - n - - smtp',
      'showq unix n - n - - showq',
      'error unix - - n - - error',
      'retry unix - - n - - error',
      'discard unix - - n - - discard',
      'virtual unix - n n - - virtual',
      'anvil unix - - n - 1 anvil',
      'scache unix - - n - 1 scache',
      'postlog unix-dgram n - n - 1 postlogd',
    ];
    writeFileSync(join(conf, 'master.cf'), services.map((s) => `${s}\n`).join(''));
  }

  private async waitForGreeting(timeoutMs: number): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const greeting = await new Promise<string>((resolve) => {
        const socket = connect({ host: '127.0.0.1', port: this.port });
        let data = '';
        socket.setTimeout(2_000, () => socket.destroy());
        socket.on('data', (chunk) => {
          data += chunk.toString('latin1');
          if (data.includes('\n')) {
            socket.end('QUIT\r\n');
            socket.destroy();
          }
        });
        socket.on('error', () => undefined);
        socket.on('close', () => resolve(data));
      });
      if (greeting.startsWith('220 ')) return;
      if (Date.now() > deadline) throw new Error(`the private Postfix did not greet on 127.0.0.1:${this.port}; its log:\n${this.log()}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }

  /** Everything Postfix logged so far (its own `maillog_file`). */
  log(): string {
    const file = join(this.dir, 'maillog');
    return existsSync(file) ? readFileSync(file, 'utf8') : '';
  }

  /** `postqueue -f`: attempts every queued message now. */
  async flush(): Promise<void> {
    await run('postqueue', ['-c', this.configDirectory, '-f']);
  }

  /** `postqueue -p`: the queue listing ("Mail queue is empty" when empty). */
  async queue(): Promise<string> {
    return (await run('postqueue', ['-c', this.configDirectory, '-p'])).output;
  }

  async queueIsEmpty(): Promise<boolean> {
    return (await this.queue()).includes('Mail queue is empty');
  }

  /** The messages delivered to `local@mailboxDomain`'s maildir, oldest first. */
  mailbox(local: string): MaildirMessage[] {
    const folder = join(this.dir, 'mail', this.mailboxDomain ?? '', local, 'new');
    if (!existsSync(folder)) return [];
    return readdirSync(folder)
      .sort()
      .map((name) => ({ file: join(folder, name), raw: readFileSync(join(folder, name)) }));
  }

  /**
   * Polls `check` until it holds, flushing Postfix's queue every second so nothing waits for
   * its backoff; throws naming `what`, with Postfix's log and queue, after `timeoutMs`.
   */
  async waitFor(check: () => boolean | Promise<boolean>, timeoutMs: number, what: string): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    let lastFlush = Date.now();
    while (!(await check())) {
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}\nPostfix queue:\n${await this.queue()}\nPostfix log:\n${this.log()}`);
      if (Date.now() - lastFlush >= 1_000) {
        lastFlush = Date.now();
        await this.flush();
      }
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }

  /** `postfix stop` (its master by its pid file if that fails), then removes the folder. */
  async stop(): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    const stopped = await run('postfix', ['-c', this.configDirectory, 'stop']);
    const pidFile = join(this.dir, 'queue', 'pid', 'master.pid');
    if (stopped.code !== 0 && existsSync(pidFile)) {
      const pid = Number.parseInt(readFileSync(pidFile, 'utf8').trim(), 10);
      if (pid > 1) {
        try {
          process.kill(pid, 'SIGKILL');
        } catch {
          // already gone
        }
      }
    }
    rmSync(this.dir, { recursive: true, force: true });
  }
}
