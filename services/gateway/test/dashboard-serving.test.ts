import { existsSync } from 'node:fs';
import path from 'node:path';
import { startTestGateway, type TestGateway } from '../../../test/support/gateway';
import { DASHBOARD_DIST_DIR } from '../src/features/dashboard/serve-dashboard';

describe('the dashboard served at /dashboard', () => {
  let t: TestGateway;
  beforeAll(async () => {
    if (!existsSync(path.join(DASHBOARD_DIST_DIR, 'index.html'))) throw new Error('Build the dashboard first: pnpm --filter @mailroom/dashboard build');
    t = await startTestGateway({ label: 'dashboard_serving' });
  });
  afterAll(() => t.close());

  const assetPaths = (html: string) => [...html.matchAll(/\b(?:src|href)="(\/dashboard\/assets\/[^"]+)"/g)].map((m) => m[1] as string);

  test('when /dashboard or any page under it is opened, then it is the app, under a strict CSP and not frameable', async () => {
    for (const url of ['/dashboard', '/dashboard/', '/dashboard/emails', '/dashboard/emails/em_123', '/dashboard/webhooks/wh_1?x=1']) {
      const res = await t.api.get(url);
      expect({ url, status: res.status }).toEqual({ url, status: 200 });
      expect(res.headers.get('content-type')).toMatch(/^text\/html/);
      expect(res.headers.get('cache-control')).toBe('no-cache');
      expect(res.headers.get('x-frame-options')).toBe('DENY');
      const csp = res.headers.get('content-security-policy') ?? '';
      for (const directive of ["default-src 'none'", "script-src 'self'", "object-src 'none'", "base-uri 'none'", "frame-ancestors 'none'", "form-action 'self'"]) {
        expect(csp).toContain(directive);
      }
      expect(csp).not.toMatch(/script-src[^;]*'unsafe-(inline|eval)'/);
      expect(res.text).toContain('<div id="app">');
      expect(res.text).not.toMatch(/<script>|<style>|\son\w+=/); // nothing inline
    }
  });

  test('when the page loads its hashed assets, then each is served with a long, immutable cache', async () => {
    const assets = assetPaths((await t.api.get('/dashboard/')).text);
    expect(assets.some((a) => a.endsWith('.js'))).toBe(true);
    expect(assets.some((a) => a.endsWith('.css'))).toBe(true);
    for (const asset of assets) {
      const res = await t.api.get(asset);
      expect({ asset, status: res.status }).toEqual({ asset, status: 200 });
      expect(res.headers.get('cache-control')).toMatch(/max-age=31536000.*immutable/);
      expect(res.headers.get('content-type')).toMatch(asset.endsWith('.js') ? /^text\/javascript/ : /^text\/css/);
    }
  });

  test('when an asset does not exist or a path escapes the folder, then it is the JSON 404', async () => {
    for (const url of ['/dashboard/assets/missing.js', '/dashboard/assets/..%2F..%2Fpackage.json', '/dashboard/assets/']) {
      const res = await t.api.get(url);
      expect({ url, status: res.status }).toEqual({ url, status: 404 });
      expect(res.body).toMatchObject({ name: 'not_found', statusCode: 404 });
    }
  });

  test('when an API path is unknown, then it is still the JSON 404, and /dashboard is not in the OpenAPI document', async () => {
    const res = await t.api.get('/dashboards');
    expect(res.status).toBe(404);
    expect(res.body).toMatchObject({ name: 'not_found' });
    const doc = (await t.api.get('/openapi.json')).body;
    expect(Object.keys(doc.paths).filter((p) => p.startsWith('/dashboard'))).toEqual([]);
  });
});
