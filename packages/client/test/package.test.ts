import { execFile, spawnSync } from 'node:child_process';
import { promisify } from 'node:util';
import { createHmac } from 'node:crypto';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { runInNewContext } from 'node:vm';
import { build } from 'esbuild';
import { createKey, signUp, startTestGateway, type TestGateway } from '../../../test/support/gateway';

/**
 * The package as people get it: `pnpm pack`'s tarball (its prepack builds dist/), checked by
 * publint and arethetypeswrong, installed with npm into an empty project outside the workspace
 * and used there from `import` and `require` (and type-checked from .mts and .cts) against a real
 * gateway; and the browser bundle, which must import no Node built-in and run with web globals only.
 */

const packageDir = path.join(__dirname, '..');
const bin = (name: string) => path.join(packageDir, 'node_modules/.bin', name);
const SECRET = `whsec_${Buffer.from('0123456789abcdef0123456789abcdef').toString('base64')}`;

let work: string;
let tarball: string;
let consumer: string;
let t: TestGateway;
let apiToken: string;

function run(command: string, args: string[], cwd: string, env: Record<string, string> = {}): { status: number | null; stdout: string; stderr: string } {
  const result = spawnSync(command, args, { cwd, encoding: 'utf8', timeout: 180_000, env: { ...process.env, ...env } });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

/** A delivery signed as DESIGN §5 says, with node:crypto. */
function signedDelivery(): { body: string; headers: Record<string, string> } {
  const body = JSON.stringify({ id: 'evt_1', type: 'email.delivered', created_at: new Date().toISOString(), data: { email_id: 'em_1' } });
  const timestamp = Math.floor(Date.now() / 1000);
  const key = Buffer.from(SECRET.slice('whsec_'.length), 'base64');
  return {
    body,
    headers: {
      'webhook-id': 'evt_1',
      'webhook-timestamp': String(timestamp),
      'webhook-signature': `v1,${createHmac('sha256', key).update(`evt_1.${timestamp}.${body}`).digest('base64')}`,
      'x-service-signature': `sha256=${createHmac('sha256', SECRET).update(body).digest('hex')}`,
    },
  };
}

// The same program from both module systems: send an email, read it back, verify a webhook.
const USAGE = (load: string) => `${load}
const delivery = JSON.parse(process.env.DELIVERY);
async function main() {
  const mailroom = new Mailroom({ apiToken: process.env.API_TOKEN, baseUrl: process.env.BASE_URL });
  const { id } = await mailroom.emails.send({ from: 'hello@acme.example', to: 'delivered@sandbox.mailroom.test', subject: process.env.SUBJECT, text: 'Hi' });
  const email = await mailroom.emails.get(id);
  const missing = await mailroom.emails.get('em_01JD0000000000000000000000').catch((error) => error);
  const event = await verifyWebhook({ payload: delivery.body, headers: delivery.headers, secret: process.env.SECRET });
  console.log(JSON.stringify({ version: VERSION, subject: email.subject, error: missing instanceof MailroomError && missing.name, event: event.type }));
}
main().catch((error) => { console.error(error); process.exit(1); });
`;

const TYPED = `import { Mailroom, type Email, type WebhookEvent } from '@mailroom/client';
const mailroom = new Mailroom({ apiToken: 'mr_x' });
export async function subject(id: string): Promise<string> {
  const email: Email = await mailroom.emails.get(id);
  return email.subject;
}
export const kind = (event: WebhookEvent) => (event.type === 'email.bounced' ? event.data.bounce.type : null);
`;

beforeAll(async () => {
  work = mkdtempSync(path.join(tmpdir(), 'mailroom-client-package-'));
  const packed = run('pnpm', ['pack', '--pack-destination', work], packageDir);
  if (packed.status !== 0) throw new Error(`pnpm pack failed: ${packed.stderr}${packed.stdout}`);
  tarball = path.join(work, readdirSync(work).find((name) => name.endsWith('.tgz'))!);

  consumer = path.join(work, 'consumer');
  mkdirSync(consumer);
  writeFileSync(path.join(consumer, 'package.json'), JSON.stringify({ name: 'consumer', private: true }));
  // Offline: the package has no dependencies, so nothing is fetched.
  const installed = run('npm', ['install', '--offline', '--no-audit', '--no-fund', tarball], consumer);
  if (installed.status !== 0) throw new Error(`npm install failed: ${installed.stderr}`);

  t = await startTestGateway({ label: 'client-package' });
  apiToken = (await createKey((await signUp(t.api)).as)).token;
}, 240_000);

afterAll(async () => {
  await t?.close();
  if (work) rmSync(work, { recursive: true, force: true });
});

describe('the packed package', () => {
  test('when checked by publint and arethetypeswrong, then neither finds a problem with its exports map', () => {
    const publint = run(bin('publint'), ['--strict', tarball], packageDir);
    expect(publint.stdout + publint.stderr).not.toMatch(/warning|error/i);
    expect(publint.status).toBe(0);
    const attw = run(bin('attw'), [tarball, '--exclude-entrypoints', 'browser', '--format', 'json'], packageDir);
    expect(attw.status).toBe(0);
    expect(JSON.parse(attw.stdout).analysis.problems).toEqual([]);
    // The browser module is an ES module only: checked as one (no node10 or require resolution).
    const browser = run(bin('attw'), [tarball, '--entrypoints', 'browser', '--profile', 'esm-only', '--format', 'json'], packageDir);
    expect(browser.status).toBe(0);
    const problems = JSON.parse(browser.stdout).analysis.problems as { resolutionKind?: string }[];
    expect(problems.filter((problem) => problem.resolutionKind !== 'node10' && problem.resolutionKind !== 'node16-cjs')).toEqual([]);
  }, 120_000);

  test('when installed outside the workspace, then it ships dist, README and package.json only, and no dependencies', () => {
    const installedDir = path.join(consumer, 'node_modules/@mailroom/client');
    expect(readdirSync(installedDir).sort()).toEqual(['README.md', 'dist', 'package.json']);
    const manifest = JSON.parse(readFileSync(path.join(installedDir, 'package.json'), 'utf8'));
    expect(manifest.dependencies).toBeUndefined();
    expect(readdirSync(path.join(consumer, 'node_modules')).filter((name) => !name.startsWith('.'))).toEqual(['@mailroom']);
  });

  test.each([
    ['import', 'usage.mjs', "import { Mailroom, MailroomError, VERSION, verifyWebhook } from '@mailroom/client';"],
    ['require', 'usage.cjs', "const { Mailroom, MailroomError, VERSION, verifyWebhook } = require('@mailroom/client');"],
  ])('when loaded with %s, then it sends and reads an email through a real gateway and verifies a webhook', async (_, file, load) => {
    writeFileSync(path.join(consumer, file), USAGE(load));
    const subject = `from ${file}`;
    const env = { API_TOKEN: apiToken, BASE_URL: t.gateway.url, SUBJECT: subject, SECRET, DELIVERY: JSON.stringify(signedDelivery()) };
    // Not spawnSync: the gateway answering it runs in this process's event loop.
    const result = await promisify(execFile)(process.execPath, [file], { cwd: consumer, encoding: 'utf8', timeout: 60_000, env: { ...process.env, ...env } });
    expect(result.stderr).toBe('');
    expect(JSON.parse(result.stdout)).toEqual({ version: '0.1.0', subject, error: 'not_found', event: 'email.delivered' });
  }, 60_000);

  test('when one program loads both builds (a dependency imports it, another requires it), then instanceof recognises an error of either build', async () => {
    const program = `import { createRequire } from 'node:module';
import * as esm from '@mailroom/client';
const cjs = createRequire(import.meta.url)('@mailroom/client');
const pairs = ['MailroomError', 'MailroomConnectionError', 'MailroomTimeoutError', 'WebhookVerificationError'];
const made = { MailroomError: (m) => new m.MailroomError({ name: 'not_found', message: 'x', statusCode: 404, requestId: null }),
  MailroomConnectionError: (m) => new m.MailroomConnectionError('x'), MailroomTimeoutError: (m) => new m.MailroomTimeoutError(1),
  WebhookVerificationError: (m) => new m.WebhookVerificationError('x') };
const seen = {};
for (const name of pairs) {
  seen[name] = [esm[name] !== cjs[name], made[name](cjs) instanceof esm[name], made[name](esm) instanceof cjs[name], made[name](cjs) instanceof Error];
  seen[name + ' not others'] = pairs.filter((other) => other !== name).some((other) => made[name](cjs) instanceof esm[other]);
}
class Mine extends esm.MailroomError {}
seen.subclass = [new Mine({ name: 'conflict', message: 'x', statusCode: 409, requestId: null }) instanceof Mine, made.MailroomError(esm) instanceof Mine];
seen.plain = [new Error('x') instanceof esm.MailroomError, null instanceof esm.MailroomError, { name: 'not_found' } instanceof cjs.MailroomError];
console.log(JSON.stringify(seen));
`;
    writeFileSync(path.join(consumer, 'both.mjs'), program);
    const result = await promisify(execFile)(process.execPath, ['both.mjs'], { cwd: consumer, encoding: 'utf8', timeout: 60_000 });
    const all = [true, true, true, true];
    expect(JSON.parse(result.stdout)).toEqual({
      MailroomError: all, 'MailroomError not others': false,
      MailroomConnectionError: all, 'MailroomConnectionError not others': false,
      MailroomTimeoutError: all, 'MailroomTimeoutError not others': false,
      WebhookVerificationError: all, 'WebhookVerificationError not others': false,
      subclass: [true, false],
      plain: [false, false, false],
    });
  }, 60_000);

  test('when imported as @mailroom/client/browser, then the exports map gives the minified ES module, which Node can load too', async () => {
    const program = "import * as client from '@mailroom/client/browser';\nimport { fileURLToPath } from 'node:url';\nconsole.log(JSON.stringify({ file: fileURLToPath(import.meta.resolve('@mailroom/client/browser')), mailroom: typeof client.Mailroom, verify: typeof client.verifyWebhook }));\n";
    writeFileSync(path.join(consumer, 'browser.mjs'), program);
    const result = await promisify(execFile)(process.execPath, ['browser.mjs'], { cwd: consumer, encoding: 'utf8', timeout: 60_000 });
    const seen = JSON.parse(result.stdout);
    expect(seen).toEqual({ file: path.join(consumer, 'node_modules/@mailroom/client/dist/browser/mailroom.js'), mailroom: 'function', verify: 'function' });
  }, 60_000);

  test('when a TypeScript project uses it from .mts and .cts files (node16 resolution), then it type-checks', () => {
    writeFileSync(path.join(consumer, 'typed.mts'), TYPED);
    writeFileSync(path.join(consumer, 'typed.cts'), TYPED);
    const compilerOptions = { module: 'node16', moduleResolution: 'node16', target: 'es2022', lib: ['es2022', 'dom'], strict: true, noEmit: true, types: [] };
    writeFileSync(path.join(consumer, 'tsconfig.json'), JSON.stringify({ compilerOptions, files: ['typed.mts', 'typed.cts'] }));
    const tsc = run(process.execPath, [require.resolve('typescript/bin/tsc'), '-p', consumer], consumer);
    expect(tsc.stdout + tsc.stderr).toBe('');
    expect(tsc.status).toBe(0);
  }, 120_000);
});

/** The installed package's ES module bundled by esbuild for browsers, as an app's build would. */
const bundleForBrowser = (format: 'esm' | 'iife') =>
  build({
    entryPoints: [path.join(consumer, 'node_modules/@mailroom/client/dist/esm/index.js')],
    bundle: true,
    platform: 'browser',
    format,
    globalName: 'MailroomClient',
    write: false,
    metafile: true,
    logLevel: 'silent',
  });

describe('the browser bundle', () => {
  test('when bundled for the browser from the package, then it imports no Node built-in', async () => {
    const result = await bundleForBrowser('esm');
    const imports = Object.values(result.metafile.inputs).flatMap((input) => input.imports.map((i) => i.path));
    expect(imports).toEqual([]);
    const shipped = readFileSync(path.join(consumer, 'node_modules/@mailroom/client/dist/browser/mailroom.js'), 'utf8');
    expect(shipped).not.toMatch(/\brequire\(|["']node:|\bprocess\.|\bBuffer\b/);
  });

  test('when run where only web globals exist (no require, process or Buffer), then it verifies a webhook and calls the gateway', async () => {
    const bundle = await bundleForBrowser('iife');
    const web = { fetch, Headers, Request, Response, URL, URLSearchParams, AbortController, AbortSignal, TextEncoder, TextDecoder, crypto, atob, btoa, setTimeout, clearTimeout, console, DOMException };
    const sandbox: Record<string, unknown> = { ...web };
    runInNewContext(`${bundle.outputFiles[0]!.text}; globalThis.MailroomClient = MailroomClient;`, sandbox);
    expect(runInNewContext('typeof require + typeof process + typeof Buffer', sandbox)).toBe('undefinedundefinedundefined');
    const { Mailroom, verifyWebhook } = sandbox.MailroomClient as typeof import('../src/index');

    const delivery = signedDelivery();
    expect((await verifyWebhook({ payload: delivery.body, headers: delivery.headers, secret: SECRET })).type).toBe('email.delivered');
    const mailroom = new Mailroom({ apiToken, baseUrl: t.gateway.url });
    const { id } = await mailroom.emails.send({ from: 'hello@acme.example', to: 'delivered@sandbox.mailroom.test', subject: 'from the browser bundle', text: 'Hi' });
    expect((await mailroom.emails.get(id)).subject).toBe('from the browser bundle');
  });
});

