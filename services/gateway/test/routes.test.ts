import { createKey, signUp, startTestGateway, type TestGateway } from '../../../test/support/gateway';
import type { ApiClient } from '../../../test/support/http';

describe('routes: /routes', () => {
  let t: TestGateway;
  let a: ApiClient;
  let b: ApiClient;
  beforeAll(async () => {
    t = await startTestGateway({ label: 'routes', env: { ALLOW_SIGNUP: 'true' } });
    a = (await signUp(t.api)).as;
    const owner = await signUp(t.api);
    // One project through a console session, the other through an API key.
    b = t.api.as({ token: (await createKey(owner.as)).token });
  });
  afterAll(() => t.close());

  let n = 0;
  const unique = (local = 'box') => `${local}${++n}@acme${n}.example`;

  test('when a route is created, then 201 with its normalized match, its name and a rt_ id', async () => {
    const res = await a.post('/routes', { match: '  Support@ACME.Example ', name: 'Support' });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      object: 'route',
      id: expect.stringMatching(/^rt_[0-9A-HJKMNP-TV-Z]{26}$/),
      match: 'support@acme.example',
      name: 'Support',
      createdAt: expect.any(String),
    });
    expect(Math.abs(Date.parse(res.body.createdAt) - Date.now())).toBeLessThan(60_000);

    const wildcard = await a.post('/routes', { match: '*@Bücher.Example' });
    expect(wildcard.status).toBe(201);
    expect(wildcard.body).toMatchObject({ match: '*@xn--bcher-kva.example', name: null });

    // An internationalized local part (the MX offers SMTPUTF8): lower-cased, in NFC.
    const international = await a.post('/routes', { match: 'Ju\u0308rgen@Bücher.Example' });
    expect(international.status).toBe(201);
    expect(international.body).toMatchObject({ match: 'jürgen@xn--bcher-kva.example' });
  });

  test.each([
    ['not an address', 'hello'],
    ['a wildcard without a domain', '*@'],
    ['a star inside an address', 'a*b@acme.example'],
    ['a domain of one label', 'support@localhost'],
    ['an empty string', ''],
    ['a number', 42],
    ['a CR/LF inside', 'a@acme.example\r\nx'],
    ['a tab inside', 'a@acme.\texample'],
    ['a quoted local part', '"info"@acme.example'],
    ['a no-break space in the local part', 'a\u00a0b@acme.example'],
  ])('when the match is %s, then 422 validation_error naming `match`', async (_label, match) => {
    const res = await a.post('/routes', { match });
    expect(res.status).toBe(422);
    expect(res.body).toEqual({ name: 'validation_error', message: expect.stringContaining('`match`'), statusCode: 422 });
  });

  test('when the match is absent or the name is invalid, then 422 naming the field', async () => {
    const missing = await a.post('/routes', { name: 'x' });
    expect(missing.body).toEqual({ name: 'missing_required_field', message: expect.stringContaining('`match`'), statusCode: 422 });
    const badName = await a.post('/routes', { match: unique(), name: 'x'.repeat(101) });
    expect(badName.body).toMatchObject({ name: 'validation_error', message: expect.stringContaining('`name`') });
  });

  test('when a match is at BOUNCE_DOMAIN (in any spelling), then 422 naming `match`, at creation and change; its subdomains and other domains are routable', async () => {
    const bounceDomain = t.config.bounceDomain;
    for (const match of [`*@${bounceDomain}`, `anything@${bounceDomain.toUpperCase()}`, ` bounces@${bounceDomain}. `]) {
      const res = await a.post('/routes', { match });
      expect([match, res.status, res.body]).toEqual([match, 422, { name: 'validation_error', message: expect.stringContaining('`match`'), statusCode: 422 }]);
    }
    const route = await a.post('/routes', { match: `*@sub.${bounceDomain}` });
    expect(route.status).toBe(201);
    const changed = await a.patch(`/routes/${route.body.id}`, { match: `*@${bounceDomain}` });
    expect(changed.status).toBe(422);
    expect((await a.get(`/routes/${route.body.id}`)).body.match).toBe(`*@sub.${bounceDomain}`);
  });

  test('when another project already has the match (in any case), then 409 conflict and nothing is stored', async () => {
    const match = unique('sales');
    expect((await a.post('/routes', { match })).status).toBe(201);
    const res = await b.post('/routes', { match: match.toUpperCase() });
    expect(res.status).toBe(409);
    expect(res.body).toEqual({ name: 'conflict', message: expect.stringContaining(match), statusCode: 409 });
    const again = await a.post('/routes', { match });
    expect(again.status).toBe(409);
    const listed = (await b.get('/routes?limit=100')).body.data.map((r: { match: string }) => r.match);
    expect(listed).not.toContain(match);
  });

  test('when both projects create the same match at once, then exactly one request gets 201 and the others 409', async () => {
    const match = `*@race${++n}.example`;
    const results = await Promise.all(Array.from({ length: 12 }, (_, i) => (i % 2 ? a : b).post('/routes', { match })));
    const statuses = results.map((r) => r.status).sort();
    expect(statuses).toEqual([201, ...Array(11).fill(409)]);
    const [winner] = results.filter((r) => r.status === 201);
    const owner = (await a.get(`/routes/${winner?.body.id}`)).status === 200 ? a : b;
    expect((await owner.get(`/routes/${winner?.body.id}`)).body.match).toBe(match);
  });

  test('when routes are listed, then newest first, paged by limit and after, and only the caller project', async () => {
    const t2 = await signUp(t.api);
    const c = t2.as;
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) ids.push((await c.post('/routes', { match: unique('page') })).body.id);
    ids.reverse();

    const first = await c.get('/routes?limit=2');
    expect(first.body).toEqual({ object: 'list', data: [expect.objectContaining({ object: 'route', id: ids[0] }), expect.objectContaining({ id: ids[1] })], hasMore: true });
    const second = await c.get(`/routes?limit=2&after=${ids[1]}`);
    expect(second.body.data.map((r: { id: string }) => r.id)).toEqual([ids[2], ids[3]]);
    expect(second.body.hasMore).toBe(true);
    const last = await c.get(`/routes?limit=2&after=${ids[3]}`);
    expect(last.body).toEqual({ object: 'list', data: [expect.objectContaining({ id: ids[4] })], hasMore: false });
    expect((await c.get('/routes')).body.data).toHaveLength(5);

    const others = (await a.get('/routes?limit=100')).body.data.map((r: { id: string }) => r.id);
    expect(others.filter((id: string) => ids.includes(id))).toEqual([]);
    for (const limit of ['0', '101', 'x']) expect((await c.get(`/routes?limit=${limit}`)).body).toMatchObject({ name: 'validation_error', statusCode: 422 });
  });

  test('when a route is read, changed and deleted, then each answers the route, and the match is free again', async () => {
    const created = (await a.post('/routes', { match: unique('help'), name: 'Help' })).body;
    expect((await a.get(`/routes/${created.id}`)).body).toEqual(created);

    const renamed = await a.patch(`/routes/${created.id}`, { name: 'Help desk' });
    expect(renamed.body).toEqual({ ...created, name: 'Help desk' });
    const newMatch = unique('desk');
    const moved = await a.patch(`/routes/${created.id}`, { match: newMatch.toUpperCase(), name: null });
    expect(moved.status).toBe(200);
    expect(moved.body).toEqual({ ...created, match: newMatch, name: null });
    expect((await a.patch(`/routes/${created.id}`, {})).body).toEqual(moved.body);
    expect((await a.patch(`/routes/${created.id}`, { match: 'nope' })).body).toMatchObject({ name: 'validation_error', message: expect.stringContaining('`match`') });

    const deleted = await a.delete(`/routes/${created.id}`);
    expect(deleted.status).toBe(200);
    expect(deleted.body).toEqual({ object: 'route', id: created.id, deleted: true });
    expect((await a.get(`/routes/${created.id}`)).status).toBe(404);
    expect((await a.delete(`/routes/${created.id}`)).status).toBe(404);
    expect((await a.patch(`/routes/${created.id}`, { name: 'x' })).status).toBe(404);
    // The other project may now take the freed match.
    expect((await b.post('/routes', { match: newMatch })).status).toBe(201);
  });

  test('when a route is changed to a match another route has, then 409 conflict and the route is unchanged', async () => {
    const mine = (await a.post('/routes', { match: unique('one') })).body;
    const sibling = (await a.post('/routes', { match: unique('two') })).body;
    const theirs = (await b.post('/routes', { match: unique('three') })).body;
    for (const match of [sibling.match, theirs.match]) {
      const res = await a.patch(`/routes/${mine.id}`, { match, name: 'changed' });
      expect(res.status).toBe(409);
      expect(res.body).toMatchObject({ name: 'conflict', statusCode: 409 });
    }
    expect((await a.get(`/routes/${mine.id}`)).body).toEqual(mine);
    // Setting a route to its own match is no conflict.
    expect((await a.patch(`/routes/${mine.id}`, { match: mine.match })).status).toBe(200);
  });

  test("when another project's route, or a malformed id, is used, then 404 not_found and nothing changes", async () => {
    const theirs = (await b.post('/routes', { match: unique('private') })).body;
    for (const res of [
      await a.get(`/routes/${theirs.id}`),
      await a.patch(`/routes/${theirs.id}`, { name: 'mine now' }),
      await a.delete(`/routes/${theirs.id}`),
      await a.get('/routes/rt_nonsense'),
      await a.get('/routes/em_01KAQ4B2C3D4E5F6G7H8J9K0MN'),
    ]) {
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ name: 'not_found', message: expect.any(String), statusCode: 404 });
    }
    expect((await b.get(`/routes/${theirs.id}`)).body).toEqual(theirs);
  });

  test('when a sending_access key calls any /routes endpoint, then 403 restricted_api_key', async () => {
    const owner = await signUp(t.api);
    const sender = t.api.as({ token: (await createKey(owner.as, 'sending_access')).token });
    const route = (await owner.as.post('/routes', { match: unique('send') })).body;
    for (const res of [
      await sender.post('/routes', { match: unique('send') }),
      await sender.get('/routes'),
      await sender.get(`/routes/${route.id}`),
      await sender.patch(`/routes/${route.id}`, { name: 'x' }),
      await sender.delete(`/routes/${route.id}`),
    ]) {
      expect(res.status).toBe(403);
      expect(res.body.name).toBe('restricted_api_key');
    }
    expect((await owner.as.get(`/routes/${route.id}`)).body).toEqual(route);
  });
});
