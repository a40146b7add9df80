import { brotliCompressSync, constants, deflateSync, gzipSync } from 'node:zlib';
import { ERROR_STATUS } from '@mailroom/core';
import { signUp, type TestGateway } from '../../../test/support/gateway';
import type { AnyRoute } from '../src/http/route';
import { parseSize } from '../src/http/timeouts';
import { allRoutes } from '../src/routes';
import { startGatewayWithTimeouts } from './raw-http';

/**
 * Every body endpoint of the route table gets generated hostile bodies, each built so that
 * it must be refused: no answer may be a 5xx or anything but the contract's JSON, and nothing
 * may be stored. New endpoints are covered as they are added (with `{}` as their base body
 * until they get a valid one below). FUZZ_SEED replays a run.
 */
const SEED = Number(process.env.FUZZ_SEED ?? Math.floor(Math.random() * 2 ** 31));
// 140 cases a route still make thousands (the kinds of flaw taken in turn, so every route gets
// each of them, huge ones included, instead of by chance), at half the cost of 270 drawn at random.
const CASES_PER_ROUTE = 140;
const CONCURRENCY = 6;

/** A valid body per operation, so that one poison is what makes each case invalid. */
const VALID_BODIES: Record<string, unknown> = {
  signUp: { email: 'fuzz@example.test', password: 'correct horse battery', projectName: 'Fuzz' },
  logIn: { email: 'fuzz@example.test', password: 'correct horse battery' },
  createProject: { name: 'Fuzzed', trackOpens: true, trackClicks: false },
  updateProject: { name: 'Renamed', trackOpens: false },
  addMember: { email: 'member@example.test', role: 'member' },
  createApiKey: { name: 'fuzz key', permission: 'sending_access' },
  sendEmail: {
    from: 'Acme <hello@acme.test>',
    to: ['alice@example.test', 'Bob <bob@example.test>'],
    cc: 'carol@example.test',
    replyTo: 'support@acme.test',
    subject: 'Hello',
    text: 'Hi there',
    html: '<p>Hi there</p>',
    headers: { 'X-Campaign': 'fuzz' },
    tags: [{ name: 'kind', value: 'fuzz' }],
    attachments: [{ filename: 'a.txt', content: 'aGVsbG8=', contentType: 'text/plain' }],
    trackOpens: true,
  },
};
// Deep copies: structuredClone keeps shared references, and a poison planted in one item must not land in both.
VALID_BODIES.sendEmailBatch = [structuredClone(VALID_BODIES.sendEmail), { ...structuredClone(VALID_BODIES.sendEmail as object), subject: 'Second' }];

type Rng = () => number;
/** mulberry32: small, seedable, good enough to pick cases. */
function rngFrom(seed: number): Rng {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
const pick = <T>(rng: Rng, items: readonly T[]): T => items[Math.floor(rng() * items.length)] as T;
const int = (rng: Rng, min: number, max: number) => min + Math.floor(rng() * (max - min + 1));

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type Container = Json[] | { [key: string]: Json };
interface Slot {
  parent: Container;
  key: string | number;
}

/** Every place in a value that holds something: where a poison can go. */
function slotsOf(value: Json): Slot[] {
  const out: Slot[] = [];
  const visit = (container: Container) => {
    const entries: [string | number, Json][] = Array.isArray(container) ? container.map((v, i) => [i, v]) : Object.entries(container);
    for (const [key, inner] of entries) {
      out.push({ parent: container, key });
      if (inner !== null && typeof inner === 'object') visit(inner);
    }
  };
  if (value !== null && typeof value === 'object') visit(value);
  return out;
}
function containersOf(value: Json): Container[] {
  const found: Container[] = value !== null && typeof value === 'object' ? [value] : [];
  for (const { parent, key } of slotsOf(value)) {
    const inner = (parent as Record<string | number, Json>)[key];
    if (inner !== null && typeof inner === 'object') found.push(inner);
  }
  return found;
}
const setSlot = ({ parent, key }: Slot, value: Json) => {
  (parent as Record<string | number, Json>)[key] = value;
};
/** Puts `value` somewhere: replacing an existing value, or under a new key. */
function plant(rng: Rng, body: Json, value: Json, newKey = 'fuzzed'): void {
  const slots = slotsOf(body);
  if (slots.length > 0 && rng() < 0.7) {
    setSlot(pick(rng, slots), value);
    return;
  }
  const containers = containersOf(body).filter((c) => !Array.isArray(c)) as { [key: string]: Json }[];
  if (containers.length > 0) pick(rng, containers)[newKey] = value;
}

const LONE = ['\ud800', '\udbff', '\udc00', '\udfff'];
const typeOf = (v: Json) => (v === null ? 'null' : Array.isArray(v) ? 'array' : typeof v);
const OTHER_TYPES: Json[] = [null, true, 0, -1.5, 1e308, {}, { nested: 'x' }, 'text'];

function deepText(rng: Rng, depth: number): string {
  const arrays = rng() < 0.5;
  return arrays ? `${'['.repeat(depth)}1${']'.repeat(depth)}` : `${'{"d":'.repeat(depth)}1${'}'.repeat(depth)}`;
}

interface Case {
  kind: string;
  text: string;
  /** Statuses that are right for it. */
  expected: number[];
  encoding?: 'gzip' | 'deflate' | 'br';
  corrupt?: boolean;
}

/** The kinds of flaw, taken in turn for each route. */
const KINDS = ['deep', 'surrogate', 'nul', 'proto', 'wrongType', 'rootType', 'malformed', 'snakeDuplicates', 'badKey'] as const;
/** Huge bodies cost the most time on both sides: one case in thirty, the first of each route over its limit. */
const HUGE_EVERY = 30;

/**
 * One hostile body built from a valid one; `limit` is the route's body limit in bytes, `nth`
 * the case's number among its route's, which picks its kind of flaw.
 */
function poison(rng: Rng, base: Json, limit: number, single: boolean, nth: number, nullIsAbsent = false): Case {
  const body = structuredClone(base);
  const kind = nth % HUGE_EVERY === HUGE_EVERY - 1 ? 'huge' : (KINDS[nth % KINDS.length] as (typeof KINDS)[number]);
  const marker = `FUZZ${Math.floor(rng() * 1e9)}`;
  const text = (value: Json) => JSON.stringify(value);
  switch (kind) {
    case 'deep': {
      plant(rng, body, marker);
      return { kind, text: text(body).replace(`"${marker}"`, deepText(rng, pick(rng, [33, 40, 500, 5_000, 60_000]))), expected: [422] };
    }
    case 'surrogate':
    case 'nul': {
      const bad = kind === 'nul' ? '\u0000' : pick(rng, LONE);
      const around = 'x'.repeat(int(rng, 0, 40));
      plant(rng, body, pick(rng, [`${bad}`, `${around}${bad}`, `${bad}${around}`, `${around}${bad}${around}`]));
      return { kind, text: text(body), expected: [422] };
    }
    case 'badKey': {
      const bad = pick(rng, [...LONE, '\u0000']);
      const containers = containersOf(body).filter((c) => !Array.isArray(c)) as { [key: string]: Json }[];
      const target = containers.length > 0 ? pick(rng, containers) : null;
      if (!target) return { kind, text: text(body === null || typeof body !== 'object' ? [] : { [`k${bad}`]: 1 }), expected: [422] };
      target[`X-Key${bad}`] = 'v';
      return { kind, text: text(body), expected: [422] };
    }
    case 'proto': {
      const containers = containersOf(body).filter((c) => !Array.isArray(c)) as { [key: string]: Json }[];
      const target = containers.length > 0 ? pick(rng, containers) : null;
      const value = pick(rng, ['x', { bcc: 'evil@example.test' }, { permission: 'full_access' }, null, 1] as Json[]);
      if (!target) return { kind, text: text([{ __proto__: value } as unknown as Json]), expected: [422] };
      target[marker] = value;
      return { kind, text: text(body).replace(`"${marker}"`, '"__proto__"'), expected: [422] };
    }
    case 'wrongType': {
      const slots = slotsOf(body).filter((s) => !Array.isArray(s.parent));
      if (slots.length === 0) return { kind, text: text(single ? 5 : {}), expected: [422] };
      const slot = pick(rng, slots);
      const current = (slot.parent as Record<string, Json>)[slot.key];
      // Where null means "not given" (sends), it is no wrong type.
      const others = OTHER_TYPES.filter((v) => typeOf(v) !== typeOf(current as Json) && !(typeOf(current as Json) === 'string' && typeOf(v) === 'array') && !(nullIsAbsent && v === null));
      setSlot(slot, pick(rng, others));
      return { kind, text: text(body), expected: [422] };
    }
    case 'rootType': {
      const roots: Json[] = single ? [null, 'x', 123, true, [], [1], [body]] : [null, 'x', 0, false, {}, body === null ? {} : { 0: body }];
      const root = pick(rng, roots);
      // A one-item array is the right shape for a batch, so its item is made wrong.
      return { kind, text: text(root), expected: [422] };
    }
    case 'malformed': {
      const full = text(body);
      const broken = pick(rng, [full.slice(0, int(rng, 1, Math.max(1, full.length - 1))), `${full},`, `${full.slice(0, -1)},${full.slice(-1)}`, `{'single': 'quotes'}`, 'NaN', '{"a":1}{"b":2}']);
      return { kind, text: broken, expected: [400] };
    }
    case 'huge': {
      const over = nth < HUGE_EVERY;
      if (over) {
        plant(rng, body, 'y'.repeat(limit + 1024));
        return { kind: 'hugeOverLimit', text: text(body), expected: [413] };
      }
      // Near the limit, with the flaw at the very end, where a scan that stops early misses it.
      // Sends take 40 MB: only a few cases go that far, to keep the run short.
      const size = limit > 2_000_000 && rng() < 0.9 ? 1_000_000 : limit - 4096 - text(body).length;
      plant(rng, body, `${'y'.repeat(Math.max(0, size))}${pick(rng, [...LONE, '\u0000'])}`);
      return { kind, text: text(body), expected: [422] };
    }
    default: {
      // snake_case spellings of the same fields next to the camelCase ones, plus one flaw.
      for (const container of containersOf(body)) {
        if (Array.isArray(container)) continue;
        for (const key of Object.keys(container)) {
          const snake = key.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
          if (snake !== key) container[snake] = pick(rng, ['x', 1, null, { a: LONE[0] as string }] as Json[]);
        }
      }
      plant(rng, body, `bad${pick(rng, LONE)}`);
      return { kind, text: text(body), expected: [422] };
    }
  }
}

/** Most cases as they are; some compressed, some of those corrupted (then 400 whatever the body). */
function encode(rng: Rng, c: Case): { body: Buffer; headers: Record<string, string>; expected: number[]; kind: string } {
  const raw = Buffer.from(c.text);
  const roll = rng();
  if (roll < 0.75 || raw.length > 2_000_000) return { body: raw, headers: {}, expected: c.expected, kind: c.kind };
  const encoding = pick(rng, ['gzip', 'deflate', 'br'] as const);
  // Brotli's default quality (11) takes a second per megabyte; the server decodes any quality alike.
  const br = (input: Buffer) => brotliCompressSync(input, { params: { [constants.BROTLI_PARAM_QUALITY]: 4 } });
  const compressed = { gzip: gzipSync, deflate: deflateSync, br }[encoding](raw);
  const headers = { 'content-encoding': encoding };
  if (roll < 0.9) return { body: compressed, headers, expected: c.expected, kind: `${c.kind}+${encoding}` };
  // Truncated: every decoder sees the stream end early.
  // An over-limit body may pass the limit before the stream breaks off: either answer is right.
  const expected = c.expected.includes(413) ? [400, 413] : [400];
  return { body: compressed.subarray(0, int(rng, 0, compressed.length - 1)), headers, expected, kind: `${c.kind}+${encoding}-truncated` };
}

describe('fuzzing every body endpoint', () => {
  let t: TestGateway;
  let owner: Awaited<ReturnType<typeof signUp>>;
  const tables = ['users', 'projects', 'members', 'api_keys', 'emails', 'email_recipients', 'email_attachments', 'idempotency_keys', 'suppressions'];
  const counts = async () => {
    const { rows } = await t.gateway.ctx.pool.query(`SELECT ${tables.map((name) => `(SELECT count(*)::int FROM ${name}) AS ${name}`).join(', ')}`);
    return rows[0];
  };

  beforeAll(async () => {
    t = await startGatewayWithTimeouts('fuzz', {}, { RATE_LIMIT_PER_SECOND: '100000', LOGIN_RATE_LIMIT_PER_MINUTE: '100000' });
    owner = await signUp(t.api);
  });
  afterAll(() => t.close());

  test('when thousands of hostile bodies are posted, then each is refused with contract JSON and nothing is stored', async () => {
    const rng = rngFrom(SEED);
    const routes = allRoutes('http://localhost').routes.filter((route: AnyRoute) => route.body);
    expect(routes.length).toBeGreaterThanOrEqual(8);
    const targets = routes.map((route) => {
      const base = (VALID_BODIES[route.operationId] ?? {}) as Json;
      return {
        route,
        base,
        path: route.path.replace('{id}', owner.projectId).replace('{userId}', owner.userId),
        credentials: (route.access.kind === 'public' ? {} : { 'x-service-session': owner.session, 'x-project-id': owner.projectId }) as Record<string, string>,
        limit: parseSize(route.bodyLimit ?? '1mb'),
        single: !Array.isArray(base),
      };
    });
    const total = targets.length * CASES_PER_ROUTE;
    expect(total).toBeGreaterThan(2_000);
    // Cases are made as they are sent (bodies can be megabytes), in index order: a seed replays them.
    const caseAt = (index: number) => {
      const target = targets[index % targets.length]!;
      const c = encode(rng, poison(rng, target.base, target.limit, target.single, Math.floor(index / targets.length), target.route.nullIsAbsent === true));
      return { ...target, ...c, headers: { 'content-type': 'application/json', ...target.credentials, ...c.headers } };
    };

    const before = await counts();
    const failures: string[] = [];
    let next = 0;
    const worker = async () => {
      while (next < total) {
        const r = caseAt(next++);
        const post = () => fetch(`${t.gateway.url}${r.path}`, { method: r.route.method.toUpperCase(), headers: r.headers, body: r.body });
        let res = await post();
        // Bodies near the limit (40 MB for a send) from several workers at once can exceed the
        // gateway's body budget (API_MAX_BUFFERED_BYTES): that is a 503 with Retry-After, before a
        // byte is read, and a client retries, as this one does, until the body is judged.
        for (let retry = 0; res.status === 503 && res.headers.get('retry-after') !== null && retry < 30; retry++) {
          await res.arrayBuffer();
          await new Promise((resolve) => setTimeout(resolve, Number(res.headers.get('retry-after')) * 1000));
          res = await post();
        }
        const text = await res.text();
        let body: { name?: string; statusCode?: number; message?: string } | null = null;
        try {
          body = JSON.parse(text);
        } catch {
          body = null;
        }
        const contract =
          body !== null &&
          Object.keys(body).sort().join() === 'message,name,statusCode' &&
          body.statusCode === res.status &&
          ERROR_STATUS[body.name as keyof typeof ERROR_STATUS] === res.status &&
          (res.headers.get('content-type') ?? '').includes('application/json') &&
          !!res.headers.get('x-request-id');
        if (!contract || !r.expected.includes(res.status)) {
          failures.push(`${r.route.method} ${r.route.path} ${r.kind} (${r.body.length} bytes): ${res.status} ${text.slice(0, 200)} (body ${r.body.subarray(0, 120).toString('latin1')})`);
        }
      }
    };
    await Promise.all(Array.from({ length: CONCURRENCY }, worker));
    expect({ seed: SEED, failures: failures.slice(0, 10), failed: failures.length }).toEqual({ seed: SEED, failures: [], failed: 0 });
    expect(await counts()).toEqual(before);
    // Some 20 s of one core; the rest is margin for a slow machine shared with other test files
    // (it took 60-110 s beside a whole suite run three files at a time on 2 cores).
  }, 180_000);
});
