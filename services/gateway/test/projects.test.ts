import { createKey, signUp, startTestGateway, type TestGateway } from '../../../test/support/gateway';

describe('projects and members', () => {
  let t: TestGateway;
  beforeAll(async () => {
    t = await startTestGateway({ label: 'projects', env: { ALLOW_SIGNUP: 'true' } });
  });
  afterAll(() => t.close());

  test('when PATCH sets trackOpens and trackClicks, then they are stored (camelCase or snake_case)', async () => {
    const owner = await signUp(t.api);
    const res = await owner.as.patch(`/projects/${owner.projectId}`, { trackOpens: true });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: owner.projectId, trackOpens: true, trackClicks: false });
    const { token } = await createKey(owner.as);
    const snake = await t.api.patch(`/projects/${owner.projectId}`, { track_clicks: true, name: 'Renamed' }, { token });
    expect(snake.body).toMatchObject({ trackOpens: true, trackClicks: true, name: 'Renamed' });
    const row = await t.gateway.ctx.db.project.findUniqueOrThrow({ where: { id: owner.projectId } });
    expect(row).toMatchObject({ trackOpens: true, trackClicks: true, name: 'Renamed' });
  });

  test('when a field has the wrong type, then 422 validation_error naming the field, and nothing changes', async () => {
    const owner = await signUp(t.api);
    for (const [field, value] of [['trackOpens', 'yes'], ['trackClicks', 1], ['name', '']] as const) {
      const res = await owner.as.patch(`/projects/${owner.projectId}`, { [field]: value });
      expect(res.status).toBe(422);
      expect(res.body.name).toBe('validation_error');
      expect(res.body.message).toContain(field);
    }
    const array = await owner.as.patch(`/projects/${owner.projectId}`, [1, 2]);
    expect(array.status).toBe(422);
    const row = await t.gateway.ctx.db.project.findUniqueOrThrow({ where: { id: owner.projectId } });
    expect(row).toMatchObject({ trackOpens: false, trackClicks: false, name: 'Acme' });
  });

  test('when a required field is absent, then 422 missing_required_field naming it', async () => {
    const owner = await signUp(t.api);
    const res = await owner.as.post('/projects', {});
    expect(res.status).toBe(422);
    expect(res.body).toEqual({ name: 'missing_required_field', message: expect.stringContaining('name'), statusCode: 422 });
  });

  test('when an owner manages members, then members are added, listed and removed, and the last owner stays', async () => {
    const owner = await signUp(t.api);
    const other = await signUp(t.api);
    const added = await owner.as.post(`/projects/${owner.projectId}/members`, { email: other.email.toUpperCase(), role: 'member' });
    expect(added.status).toBe(201);
    expect(added.body).toMatchObject({ object: 'member', id: other.userId, email: other.email, role: 'member' });
    expect((await owner.as.post(`/projects/${owner.projectId}/members`, { email: other.email })).status).toBe(409);
    expect((await owner.as.post(`/projects/${owner.projectId}/members`, { email: 'ghost@example.com' })).status).toBe(404);

    // A member may read the list but not manage it.
    const asMember = t.api.as({ session: other.session });
    const list = await asMember.get(`/projects/${owner.projectId}/members`);
    // Newest first by id, as every list: the other user signed up after the owner.
    expect(list.body.data.map((m: { id: string; role: string }) => [m.id, m.role])).toEqual([
      [other.userId, 'member'],
      [owner.userId, 'owner'],
    ]);
    expect((await asMember.delete(`/projects/${owner.projectId}/members/${owner.userId}`)).body.name).toBe('forbidden');

    const lastOwner = await owner.as.delete(`/projects/${owner.projectId}/members/${owner.userId}`);
    expect(lastOwner.status).toBe(409);
    expect(lastOwner.body.name).toBe('conflict');

    const removed = await owner.as.delete(`/projects/${owner.projectId}/members/${other.userId}`);
    expect(removed.body).toEqual({ object: 'member', id: other.userId, deleted: true });
    expect((await asMember.get(`/projects/${owner.projectId}`)).status).toBe(404);
  });

  test('when projects and members are listed, then they page by limit and after, newest first, and a limit that is no whole number from 1 to 100 is a 422', async () => {
    const owner = await signUp(t.api);
    const second = (await owner.as.post('/projects', { name: 'Second' })).body.id;
    const third = (await owner.as.post('/projects', { name: 'Third' })).body.id;
    const first = await owner.as.get('/projects?limit=2');
    expect([first.body.data.map((p: { id: string }) => p.id), first.body.hasMore]).toEqual([[third, second], true]);
    const rest = await owner.as.get(`/projects?limit=2&after=${second}`);
    expect([rest.body.data.map((p: { id: string }) => p.id), rest.body.hasMore]).toEqual([[owner.projectId], false]);

    const others = [await signUp(t.api), await signUp(t.api)];
    for (const other of others) expect((await owner.as.post(`/projects/${owner.projectId}/members`, { email: other.email })).status).toBe(201);
    const members = await owner.as.get(`/projects/${owner.projectId}/members?limit=2`);
    expect([members.body.data.map((m: { id: string }) => m.id), members.body.hasMore]).toEqual([[others[1]?.userId, others[0]?.userId], true]);
    const last = await owner.as.get(`/projects/${owner.projectId}/members?limit=2&after=${others[0]?.userId}`);
    expect([last.body.data.map((m: { id: string }) => m.id), last.body.hasMore]).toEqual([[owner.userId], false]);

    for (const limit of ['0', '101', 'abc', '0x10', '1e1', '%201', '2.5', '-1']) {
      for (const path of ['/projects', `/projects/${owner.projectId}/members`, '/api-keys']) {
        const res = await owner.as.get(`${path}?limit=${limit}`);
        expect([path, limit, res.status, res.body.name]).toEqual([path, limit, 422, 'validation_error']);
      }
    }
    expect((await owner.as.get('/projects?limit=01')).status).toBe(200);
  });

  test('when an owner changes roles, then a member becomes an owner and back, the last owner cannot be demoted, and a member may not change roles', async () => {
    const owner = await signUp(t.api);
    const other = await signUp(t.api);
    await owner.as.post(`/projects/${owner.projectId}/members`, { email: other.email, role: 'member' });
    const asOther = t.api.as({ session: other.session });
    const path = (userId: string) => `/projects/${owner.projectId}/members/${userId}`;

    expect((await asOther.patch(path(other.userId), { role: 'owner' })).body.name).toBe('forbidden');
    expect((await owner.as.patch(path(owner.userId), { role: 'member' })).body).toMatchObject({ name: 'conflict', statusCode: 409 });
    expect((await owner.as.patch(path(other.userId), { role: 'admin' })).body).toMatchObject({ name: 'validation_error', statusCode: 422 });
    expect((await owner.as.patch(path(other.userId), {})).body).toMatchObject({ name: 'missing_required_field', statusCode: 422 });
    expect((await owner.as.patch(path('usr_nobody'), { role: 'owner' })).body).toMatchObject({ name: 'not_found', statusCode: 404 });

    const promoted = await owner.as.patch(path(other.userId), { role: 'owner' });
    expect(promoted.status).toBe(200);
    expect(promoted.body).toMatchObject({ object: 'member', id: other.userId, email: other.email, role: 'owner' });
    // Two owners now: the first may be demoted, by the second, who then is the last one.
    expect((await asOther.patch(path(owner.userId), { role: 'member' })).body).toMatchObject({ id: owner.userId, role: 'member' });
    expect((await asOther.patch(path(other.userId), { role: 'member' })).status).toBe(409);
    expect((await owner.as.patch(path(other.userId), { role: 'member' })).body.name).toBe('forbidden');

    // Another project's owner cannot reach this project's members.
    const stranger = await signUp(t.api);
    expect((await stranger.as.patch(path(other.userId), { role: 'member' }, { project: owner.projectId })).status).toBe(404);
  });

  test('when a full_access token manages members, then 403 forbidden (owner-only)', async () => {
    const owner = await signUp(t.api);
    const other = await signUp(t.api);
    const { token } = await createKey(owner.as);
    const res = await t.api.post(`/projects/${owner.projectId}/members`, { email: other.email }, { token });
    expect(res.status).toBe(403);
    expect(res.body.name).toBe('forbidden');
    expect((await t.api.get(`/projects/${owner.projectId}/members`, { token })).status).toBe(200);
  });
});
