import { brotliCompressSync, deflateSync, gzipSync } from 'node:zlib';
import { createKey, signUp, type TestGateway } from '../../../test/support/gateway';
import type { ApiClient, ApiResponse } from '../../../test/support/http';
import { rawRequest, startGatewayWithTimeouts } from './raw-http';

const errorBody = (name: string, statusCode: number) => ({ name, message: expect.any(String), statusCode });
const validSend = { from: 'Acme <hello@acme.test>', to: 'alice@example.test', subject: 'Hi', text: 'Hello' };
const json = { 'content-type': 'application/json' };

// Short enough for tests; the defaults are 10 s for headers and 5 s + 1 s/MB for a body.
const TIMEOUTS = { headersMs: 800, bodyBaseMs: 600, bodyBytesPerSecond: 1_000_000_000 };

function expectContractError(res: ApiResponse, name: string, statusCode: number, message?: RegExp): void {
  expect({ status: res.status, body: res.body }).toEqual({ status: statusCode, body: errorBody(name, statusCode) });
  if (message) expect(res.body.message).toMatch(message);
  expect(res.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
}

describe('hostile request bodies', () => {
  let t: TestGateway;
  let api: ApiClient;
  beforeAll(async () => {
    // The production deadlines: a body read under a CI run's load must not race a short one
    // (a gzip bomb's 413 once came out 408). The slow-client items start their own, short ones.
    t = await startGatewayWithTimeouts('hostile', {});
    const owner = await signUp(t.api);
    api = t.api.as({ token: (await createKey(owner.as)).token });
  });
  afterAll(() => t.close());

  const stored = async () => {
    const { rows } = await t.gateway.ctx.pool.query(
      'SELECT (SELECT count(*) FROM emails) AS emails, (SELECT count(*) FROM users) AS users, (SELECT count(*) FROM api_keys) AS keys',
    );
    return rows[0];
  };

  describe('item 1: nesting depth', () => {
    const deepArray = `${'['.repeat(50_000)}${']'.repeat(50_000)}`;
    const deepObject = `${'{"a":'.repeat(20_000)}1${'}'.repeat(20_000)}`;

    test.each([
      ['/auth/login', `{"email":"a@b.co","password":${deepArray}}`],
      ['/auth/signup', `{"email":"a@b.co","password":"long enough","projectName":${deepObject}}`],
      ['/api-keys', `{"name":${deepArray}}`],
      ['/emails', `{"from":"a@b.co","to":"c@d.co","subject":"x","text":"x","headers":${deepObject}}`],
      ['/emails/batch', deepArray],
    ])('when JSON nested thousands of levels deep is posted to %s, then 422 validation_error and nothing is stored', async (path, rawBody) => {
      const before = await stored();
      const res = await api.request('POST', path, { rawBody, headers: json });
      expectContractError(res, 'validation_error', 422, /more than 32 levels deep/);
      expect(await stored()).toEqual(before);
    });

    test('when nesting stays within 32 levels, then the body is validated as usual', async () => {
      const res = await api.request('POST', '/api-keys', { rawBody: `{"name":${'['.repeat(30)}${']'.repeat(30)}}`, headers: json });
      expectContractError(res, 'validation_error', 422, /`name`/);
    });
  });

  describe('item 2: content encodings', () => {
    const body = Buffer.from(JSON.stringify({ name: 'compressed' }));
    const encoders = { gzip: gzipSync, deflate: deflateSync, br: brotliCompressSync };

    test.each(Object.keys(encoders))('when a %s body is corrupt or truncated, then 400 invalid_json', async (encoding) => {
      const encoded = encoders[encoding as keyof typeof encoders](body);
      for (const rawBody of [encoded.subarray(0, encoded.length - 4), Buffer.from('not compressed at all'), encoded.subarray(0, 3)]) {
        const res = await api.request('POST', '/api-keys', { rawBody, headers: { ...json, 'content-encoding': encoding } });
        expectContractError(res, 'invalid_json', 400);
      }
    });

    test.each(Object.keys(encoders))('when a %s body is intact, then it is read', async (encoding) => {
      const rawBody = encoders[encoding as keyof typeof encoders](body);
      const res = await api.request('POST', '/api-keys', { rawBody, headers: { ...json, 'content-encoding': encoding } });
      expect(res.status).toBe(201);
      expect(res.body.name).toBe('compressed');
    });

    test('when the encoding is unknown, then 400 invalid_json naming the encodings taken', async () => {
      const res = await api.request('POST', '/api-keys', { rawBody: body, headers: { ...json, 'content-encoding': 'compress' } });
      expectContractError(res, 'invalid_json', 400, /gzip, deflate or br/);
    });

    test('when a small compressed body inflates beyond the limit, then 413 payload_too_large', async () => {
      const bomb = gzipSync(Buffer.from(`{"name":"${' '.repeat(8_000_000)}"}`));
      expect(bomb.length).toBeLessThan(100_000);
      const res = await api.request('POST', '/api-keys', { rawBody: bomb, headers: { ...json, 'content-encoding': 'gzip' } });
      expectContractError(res, 'payload_too_large', 413);
    });
  });

  describe('item 3: lone UTF-16 surrogates', () => {
    const lone = ['\ud800', 'x\udc00y', 'end\udbff'];
    const cases: [string, (s: string) => Record<string, unknown>][] = [
      ['subject', (s) => ({ subject: s })],
      ['text', (s) => ({ text: s })],
      ['html', (s) => ({ html: s })],
      ['from', (s) => ({ from: `${s} <hello@acme.test>` })],
      ['to[1]', (s) => ({ to: ['bob@example.test', `Al${s} <alice@example.test>`] })],
      ['cc', (s) => ({ cc: `${s} <c@example.test>` })],
      ['replyTo', (s) => ({ replyTo: `${s} <r@example.test>` })],
      ['headers.X-Custom', (s) => ({ headers: { 'X-Custom': s } })],
      ['headers', (s) => ({ headers: { [`X-${s}`]: 'v' } })],
      ['tags[0].value', (s) => ({ tags: [{ name: 'n', value: s }] })],
      ['attachments[0].filename', (s) => ({ attachments: [{ filename: s, content: 'aGk=' }] })],
    ];

    test.each(cases)('when `%s` holds a lone surrogate, then 422 validation_error naming it, on /emails and /emails/batch', async (field, make) => {
      const before = await stored();
      for (const s of lone) {
        const one = await api.post('/emails', { ...validSend, ...make(s) });
        expectContractError(one, 'validation_error', 422);
        expect(one.body.message).toContain(`\`${field}\`:`);
        const batch = await api.post('/emails/batch', [validSend, { ...validSend, ...make(s) }]);
        expectContractError(batch, 'validation_error', 422);
        expect(batch.body.message).toContain(`\`[1].${field}\`:`);
      }
      expect(await stored()).toEqual(before);
    });

    test('when a string holds a correctly paired surrogate (an emoji), then it is accepted', async () => {
      const res = await api.post('/emails', { ...validSend, subject: 'Hi \ud83d\ude00' });
      expect(res.status).toBe(200);
    });
  });

  describe('item 6: wrong-shape bodies', () => {
    test.each(['null', '"x"', '123', 'true', '[]'])('when the body is the JSON value %s, then 422 "must be a JSON object"', async (rawBody) => {
      for (const path of ['/api-keys', '/auth/login']) {
        const res = await api.request('POST', path, { rawBody, headers: json });
        expectContractError(res, 'validation_error', 422, /must be a JSON object/);
      }
    });

    test.each([
      ['an empty array', []],
      ['101 emails', Array.from({ length: 101 }, () => validSend)],
      ['an object', validSend],
      ['null', null],
    ])('when /emails/batch gets %s, then 422 saying it takes a JSON array of 1–100 emails', async (_, body) => {
      const before = await stored();
      const res = await api.request('POST', '/emails/batch', { rawBody: JSON.stringify(body), headers: json });
      expectContractError(res, 'validation_error', 422, /JSON array of 1–100 emails/);
      expect(await stored()).toEqual(before);
    });

    test('when a `__proto__` key is sent, then 422 naming where, rather than being dropped', async () => {
      const cases: [string, string][] = [
        ['/emails', `{"from":"a@b.co","to":"c@d.co","subject":"x","text":"x","headers":{"__proto__":"x"}}`],
        ['/emails', `{"from":"a@b.co","to":"c@d.co","subject":"x","text":"x","headers":{"__proto__":{"X-A":"b"}}}`],
        ['/emails', `{"from":"a@b.co","to":"c@d.co","subject":"x","text":"x","__proto__":{"bcc":"evil@x.co"}}`],
        ['/api-keys', `{"name":"k","__proto__":{"permission":"full_access"}}`],
      ];
      const before = await stored();
      for (const [path, rawBody] of cases) {
        const res = await api.request('POST', path, { rawBody, headers: json });
        expectContractError(res, 'validation_error', 422, /__proto__/);
      }
      expect(await stored()).toEqual(before);
      const res = await api.request('POST', '/emails', { rawBody: cases[0]![1], headers: json });
      expect(res.body.message).toMatch(/^`headers`:/);
    });

    test('when header names are `constructor`, `prototype` or `toString`, then they are kept as ordinary data', async () => {
      const headers = { constructor: 'a', prototype: 'b', toString: 'c', hasOwnProperty: 'd' };
      const res = await api.post('/emails', { ...validSend, headers });
      expect(res.status).toBe(200);
      const email = await t.gateway.ctx.db.email.findUniqueOrThrow({ where: { id: res.body.id } });
      expect(email.headers).toEqual(headers);
    });

    test.each([
      ['to', { to: '<u@example.test> <v@example.test>' }],
      ['to', { to: 'u@example.test (v@example.test)' }],
      ['to', { to: 'u@example.test v@example.test' }],
      ['to', { to: 'u@example.test <v@example.test>' }],
      ['to', { to: '"v@example.test" <u@example.test>' }],
      ['to', { to: 'Ana (comment) <u@example.test>' }],
      ['to', { to: 'group: u@example.test;' }],
      ['to[1]', { to: ['ok@example.test', '<u@example.test> <v@example.test>'] }],
      ['from', { from: '<hello@acme.test> <v@example.test>' }],
      ['cc', { cc: 'u@example.test (v@example.test)' }],
      ['bcc[0]', { bcc: ['<u@example.test> <v@example.test>'] }],
      ['replyTo', { replyTo: 'u@example.test (v@example.test)' }],
    ])('when `%s` is not exactly one mailbox (%j), then 422 naming it', async (field, fields) => {
      const before = await stored();
      const res = await api.post('/emails', { ...validSend, ...fields });
      expectContractError(res, 'validation_error', 422);
      expect(res.body.message).toMatch(new RegExp(`^\`${field.replace(/[[\]]/g, '\\$&')}\`:`));
      expect(await stored()).toEqual(before);
    });

    test('when a mailbox has a quoted or non-ASCII display name, then it is accepted as sent', async () => {
      const to = ['"Lima, Ana" <ana@example.test>', 'José Silva <jose@example.test>', '<bare@example.test>'];
      const res = await api.post('/emails', { ...validSend, to });
      expect(res.status).toBe(200);
      const recipients = await t.gateway.ctx.db.emailRecipient.findMany({ where: { emailId: res.body.id } });
      expect(recipients.map((r) => r.address).sort()).toEqual(['ana@example.test', 'bare@example.test', 'jose@example.test']);
    });
  });

  describe('items 4 and 5: framing and slow clients', () => {
    // Deadlines short enough that waiting for them keeps the tests quick.
    let slow: TestGateway;
    beforeAll(async () => {
      slow = await startGatewayWithTimeouts('hostileslow', TIMEOUTS);
    });
    afterAll(() => slow.close());
    const host = () => new URL(slow.gateway.url).host;
    const expectRawContractError = (res: Awaited<ReturnType<typeof rawRequest>>, name: string, statusCode: number) => {
      expect(res.status).toBe(statusCode);
      expect(res.headers['content-type']).toContain('application/json');
      expect(res.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
      expect(JSON.parse(res.body)).toEqual(errorBody(name, statusCode));
    };

    test('when a header is over 16 KB, then 431 headers_too_large as JSON', async () => {
      const res = await rawRequest(slow.gateway.url, [`GET /healthz HTTP/1.1\r\nHost: ${host()}\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`]);
      expectRawContractError(res, 'headers_too_large', 431);
    });

    test.each([
      ['Content-Length with Transfer-Encoding', 'POST /auth/login HTTP/1.1\r\nHost: h\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n'],
      ['a malformed request line', 'GET /healthz HTTP/9 nonsense\r\n\r\n'],
      ['a malformed chunk size', 'POST /auth/login HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n{}\r\n0\r\n\r\n'],
    ])('when a request has %s, then 400 invalid_json as JSON', async (_, raw) => {
      expectRawContractError(await rawRequest(slow.gateway.url, [raw]), 'invalid_json', 400);
    });

    test('when a body never finishes (chunked without the last chunk), then 408 request_timeout as JSON and the connection closes', async () => {
      const res = await rawRequest(slow.gateway.url, [`POST /auth/login HTTP/1.1\r\nHost: ${host()}\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n2\r\n{"\r\n`]);
      expectRawContractError(res, 'request_timeout', 408);
      expect(res.closed).toBe(true);
      expect(res.closedAfterMs).toBeLessThan(3_000);
    });

    test('when a body is shorter than its Content-Length, then 408 request_timeout as JSON', async () => {
      const res = await rawRequest(slow.gateway.url, [`POST /auth/signup HTTP/1.1\r\nHost: ${host()}\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"email":`]);
      expectRawContractError(res, 'request_timeout', 408);
      expect(res.closedAfterMs).toBeLessThan(3_000);
    });

    test('when a body keeps trickling past its deadline, then 408 all the same', async () => {
      const head = `POST /auth/login HTTP/1.1\r\nHost: ${host()}\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n`;
      const res = await rawRequest(slow.gateway.url, [head, ...Array.from({ length: 12 }, () => '1\r\n \r\n')], { pauseMs: 150 });
      expectRawContractError(res, 'request_timeout', 408);
      expect(res.closedAfterMs).toBeLessThan(1_500);
    });

    test('when a body arrives in pieces within its deadline, then it is read as usual', async () => {
      const body = JSON.stringify({ email: 'nobody@example.test', password: 'not the password' });
      const head = `POST /auth/login HTTP/1.1\r\nHost: ${host()}\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n`;
      const res = await rawRequest(slow.gateway.url, [head, body.slice(0, 10), body.slice(10, 30), body.slice(30)], { pauseMs: 50 });
      expectRawContractError(res, 'invalid_credentials', 401);
    });

    test('when the headers never finish, then the connection is answered 408 and closed within seconds', async () => {
      const res = await rawRequest(slow.gateway.url, [`POST /auth/login HTTP/1.1\r\nHost: ${host()}\r\nX-Slow: 1\r\n`, 'X-Slower: 2\r\n'], { pauseMs: 300 });
      expectRawContractError(res, 'request_timeout', 408);
      expect(res.closed).toBe(true);
      expect(res.closedAfterMs).toBeLessThan(3_000);
    });

    test('when a client trickles headers a byte at a time, then it cannot stretch the deadline', async () => {
      const request = `GET /healthz HTTP/1.1\r\nHost: ${host()}\r\nX-Trickle: ${'a'.repeat(40)}\r\n\r\n`;
      const res = await rawRequest(slow.gateway.url, [...request], { pauseMs: 50, waitMs: 6_000 });
      expect(res.closed).toBe(true);
      expect(res.closedAfterMs).toBeLessThan(3_500);
      expect(res.status).toBe(408);
    });
  });

  test('when any response is written, then it carries its own X-Request-Id, not one the client sent', async () => {
    const sent = { 'x-request-id': 'chosen-by-client' };
    const answers = await Promise.all([
      t.api.get('/healthz', { headers: sent }),
      t.api.get('/nope', { headers: sent }),
      api.post('/api-keys', {}, { headers: sent }),
      api.get('/api-keys', { headers: sent }),
    ]);
    const ids = answers.map((res) => res.headers.get('x-request-id'));
    for (const id of ids) expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
    expect(new Set(ids).size).toBe(ids.length);
  });
});

describe('slow clients against the sign-in limit', () => {
  let t: TestGateway;
  beforeAll(async () => {
    t = await startGatewayWithTimeouts('slowlogin', TIMEOUTS, { LOGIN_RATE_LIMIT_PER_MINUTE: '2' });
  });
  afterAll(() => t.close());

  test('when sign-in bodies time out, then each counts against the per-IP limit', async () => {
    const stalled = `POST /auth/login HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 50\r\n\r\n{`;
    const first = await Promise.all([rawRequest(t.gateway.url, [stalled]), rawRequest(t.gateway.url, [stalled])]);
    expect(first.map((r) => r.status)).toEqual([408, 408]);
    const res = await t.api.post('/auth/login', { email: 'nobody@example.test', password: 'whatever it is' });
    expectContractError(res, 'rate_limit_exceeded', 429);
  });
  test('when sign-in headers never finish, then each stalled request counts against the per-IP limit', async () => {
    const slow = await startGatewayWithTimeouts('slowheaders', TIMEOUTS, { LOGIN_RATE_LIMIT_PER_MINUTE: '2' });
    try {
      const stalled = 'POST /auth/login HTTP/1.1\r\nHost: x\r\nX-Slow: 1\r\n';
      const first = await Promise.all([rawRequest(slow.gateway.url, [stalled]), rawRequest(slow.gateway.url, [stalled])]);
      expect(first.map((r) => r.status)).toEqual([408, 408]);
      const res = await slow.api.post('/auth/login', { email: 'nobody@example.test', password: 'whatever it is' });
      expectContractError(res, 'rate_limit_exceeded', 429);
    } finally {
      await slow.close();
    }
  });
});

describe('default HTTP timeouts', () => {
  let t: TestGateway;
  beforeAll(async () => {
    t = await startGatewayWithTimeouts('timeouts', {});
  });
  afterAll(() => t.close());

  test('when no timeouts are given, then headers get 10 s, checked every second, and no request lasts beyond a minute', () => {
    const { server } = t.gateway;
    expect(server.headersTimeout).toBe(10_000);
    expect(server.requestTimeout).toBeGreaterThan(40_000);
    expect(server.requestTimeout).toBeLessThanOrEqual(60_000);
  });
});
