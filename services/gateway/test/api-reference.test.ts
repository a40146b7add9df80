import { startTestGateway, type TestGateway } from '../../../test/support/gateway';
import { allRoutes } from '../src/routes';
import { OPERATION_EXAMPLES } from '../src/openapi/examples';

describe('the API reference at /docs', () => {
  let t: TestGateway;
  let doc: any;
  beforeAll(async () => {
    t = await startTestGateway({ label: 'api_reference' });
    doc = (await t.api.get('/openapi.json')).body;
  });
  afterAll(() => t.close());

  /** Every `src` and `href` of a page. */
  const references = (html: string) => [...html.matchAll(/\b(?:src|href)="([^"]*)"/g)].map((m) => m[1] as string);

  test('when /docs is opened, then it is Swagger UI loaded only from this gateway, under a strict CSP', async () => {
    const res = await t.api.get('/docs');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('text/html');
    const refs = references(res.text);
    expect(refs).toEqual(expect.arrayContaining(['docs/swagger-ui.css', 'docs/swagger-ui-bundle.js', 'docs/reference.js']));
    // Same origin: no scheme, no protocol-relative or absolute URL to anywhere else.
    expect(refs.filter((r) => /^(?:[a-z]+:|\/\/)/i.test(r))).toEqual([]);
    expect(res.text).not.toMatch(/<script>|<style>|\son\w+=/); // nothing inline, so the CSP can forbid it
    const csp = res.headers.get('content-security-policy') ?? '';
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("default-src 'none'");
  });

  test('when the page loads its assets, then each is served with its content type, and the bundle is Swagger UI', async () => {
    const page = await t.api.get('/docs');
    const types: Record<string, RegExp> = { css: /^text\/css/, js: /^text\/javascript/ };
    for (const ref of references(page.text)) {
      const res = await t.api.get(new URL(ref, `${t.gateway.url}/docs`).pathname);
      expect({ ref, status: res.status }).toEqual({ ref, status: 200 });
      expect(res.headers.get('content-type')).toMatch(types[ref.split('.').pop() ?? ''] ?? /^$/);
      expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    }
    expect((await t.api.get('/docs/swagger-ui-bundle.js')).text).toContain('SwaggerUIBundle');
    const script = (await t.api.get('/docs/reference.js')).text;
    expect(script).toContain("'openapi.json'");
    expect(script).toContain('validatorUrl: null'); // no call to an online validator
  });

  test('when /docs/ is opened (a trailing slash, under which the page\'s relative assets would not resolve), then it redirects to /docs, relatively', async () => {
    const res = await fetch(`${t.gateway.url}/docs/`, { redirect: 'manual' });
    expect(res.status).toBe(301);
    const location = res.headers.get('location') ?? '';
    expect(location).not.toMatch(/^(?:[a-z]+:|\/\/)/i);
    expect(new URL(location, `${t.gateway.url}/docs/`).pathname).toBe('/docs');
    const followed = await fetch(`${t.gateway.url}/docs/`);
    expect([followed.status, followed.url]).toEqual([200, `${t.gateway.url}/docs`]);
  });

  test('when an unknown or traversing asset is asked for, then it is a JSON 404', async () => {
    for (const path of ['/docs/package.json', '/docs/..%2Fpackage.json', '/docs/index.html']) {
      const res = await t.api.get(path);
      expect(res.status).toBe(404);
      expect(res.body).toMatchObject({ name: 'not_found', statusCode: 404 });
    }
  });

  test('then the document introduces only what exists: sending, projects, keys and sessions', () => {
    const intro: string = doc.info.description;
    expect(intro).toMatch(/POST \/emails/);
    expect(intro).toMatch(/API key/);
    expect(intro).toMatch(/session/);
    expect(intro).not.toMatch(/webhook|inbound|receiv|tracks? opens|clicks/i);
  });

  test('then every $ref leads to a component with its fields', () => {
    const refs = new Set<string>();
    JSON.stringify(doc, (key, value) => {
      if (key === '$ref') refs.add(value);
      return value;
    });
    expect(refs.size).toBeGreaterThan(5);
    for (const ref of refs) {
      const target = ref.replace('#/components/schemas/', '');
      const schema = doc.components.schemas[target];
      expect({ ref, defined: schema !== undefined }).toEqual({ ref, defined: true });
      expect(schema.type ?? schema.anyOf ?? schema.oneOf ?? schema.enum).toBeDefined();
    }
  });

  describe('examples', () => {
    const { routes } = allRoutes('http://x');

    test.each(routes.map((r) => [r.operationId, r] as const))('when %s is documented, then its examples parse with its own schemas', (operationId, route) => {
      const example = OPERATION_EXAMPLES[operationId];
      expect(example).toBeDefined();
      if (!example) return;
      const check = (what: string, schema: { safeParse(v: unknown): { success: boolean; error?: unknown } } | undefined, value: unknown) => {
        if (!schema) return;
        const result = schema.safeParse(value);
        expect({ what, value, error: result.success ? undefined : result.error }).toEqual({ what, value, error: undefined });
      };
      if (route.body) expect(example.request).toBeDefined();
      if (route.params) expect(example.params).toBeDefined();
      check('request', route.body, example.request);
      check('params', route.params, example.params);
      check('query', route.query, example.query ?? {});
      check('response', route.success.schema, example.response);
    });

    test('then the document shows each example request, response and parameter', () => {
      for (const route of routes) {
        const op = doc.paths[route.path][route.method];
        const example = OPERATION_EXAMPLES[route.operationId];
        const contentType = route.success.contentType ?? 'application/json';
        expect(op.responses[String(route.success.status)].content[contentType].example).toEqual(example?.response);
        if (route.body) expect(op.requestBody.content['application/json'].example).toEqual(example?.request);
        for (const parameter of op.parameters ?? []) {
          if (parameter.in === 'path') expect({ name: parameter.name, example: parameter.example }).toEqual({ name: parameter.name, example: expect.anything() });
        }
      }
      const listEmails = doc.paths['/emails'].get.parameters.map((p: { name: string }) => p.name);
      expect(listEmails).toEqual(expect.arrayContaining(['limit', 'after', 'status']));
    });
  });
});
