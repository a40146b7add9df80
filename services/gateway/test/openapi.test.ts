import { spawnSync } from 'node:child_process';
import { WEBHOOK_EVENT_TYPES } from '@mailroom/core';
import { startTestGateway, type TestGateway } from '../../../test/support/gateway';
import { allRoutes } from '../src/routes';

// The validator is ESM-only; jest runs CommonJS, so it runs in a child Node process.
const VALIDATE = `
import { Validator } from '@seriousme/openapi-schema-validator';
let input = '';
for await (const chunk of process.stdin) input += chunk;
const result = await new Validator().validate(JSON.parse(input));
process.stdout.write(JSON.stringify({ valid: result.valid, errors: result.errors }));
`;

describe('the OpenAPI document', () => {
  let t: TestGateway;
  let doc: any;
  beforeAll(async () => {
    t = await startTestGateway({ label: 'openapi' });
    doc = (await t.api.get('/openapi.json')).body;
  });
  afterAll(() => t.close());

  test('when validated by a real OpenAPI 3.1 validator, then it is valid', () => {
    const run = spawnSync(process.execPath, ['--input-type=module', '-e', VALIDATE], {
      input: JSON.stringify(doc),
      cwd: __dirname,
      encoding: 'utf8',
    });
    expect(run.stderr).toBe('');
    const result = JSON.parse(run.stdout);
    expect(result.errors).toBeUndefined();
    expect(result.valid).toBe(true);
  });

  test('when compared with the route table, then every endpoint is documented with its method', () => {
    const { routes } = allRoutes('http://x');
    for (const route of routes) {
      expect(doc.paths[route.path]?.[route.method]).toBeDefined();
    }
    const documented = Object.values(doc.paths as Record<string, object>).reduce((n, item) => n + Object.keys(item).length, 0);
    expect(documented).toBe(routes.length);
  });

  test('then it declares both security schemes, the error schema and WebhookEventType', () => {
    expect(doc.openapi).toBe('3.1.0');
    expect(doc.components.securitySchemes).toMatchObject({
      apiToken: { type: 'http', scheme: 'bearer' },
      consoleSession: { type: 'apiKey', in: 'header', name: 'X-Service-Session' },
      consoleProject: { type: 'apiKey', in: 'header', name: 'X-Project-Id' },
    });
    expect(doc.components.schemas.Error.required).toEqual(['name', 'message', 'statusCode']);
    expect(doc.components.schemas.WebhookEventType.enum).toEqual([...WEBHOOK_EVENT_TYPES]);
    expect(doc.paths['/projects'].post.security).toEqual([{ consoleSession: [], consoleProject: [] }]);
    expect(doc.paths['/projects/{id}'].patch.requestBody.content['application/json'].schema).toBeDefined();
    expect(doc.paths['/projects/{id}'].patch.responses['422']).toBeDefined();
  });

  test('when /docs is opened, then it renders the reference as self-contained HTML', async () => {
    const res = await t.api.get('/docs');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('text/html');
    expect(res.text).toContain('/api-keys/{id}');
    expect(res.text).not.toMatch(/<script|https?:\/\/(?!localhost)/);
  });
});
