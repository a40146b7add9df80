import { spawnSync } from 'node:child_process';
import { TEST_EVENT_TYPE, WEBHOOK_EVENT_TYPES } from '@mailroom/core';
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

  test('then each operation documents the errors its access rule and inputs imply, beside its own', () => {
    const errorsOf = (path: string, method: string) =>
      Object.fromEntries(
        Object.entries(doc.paths[path][method].responses as Record<string, { description: string }>)
          .filter(([status]) => Number(status) >= 400)
          .map(([status, r]) => [status, (r.description.match(/`\w+`/g) ?? []).map((n) => n.slice(1, -1)).sort()]),
      );
    const { routes } = allRoutes('http://x');
    for (const route of routes.filter((r) => r.access.kind !== 'public')) {
      const errors = errorsOf(route.path, route.method);
      expect(errors['401']).toEqual(['invalid_session', 'missing_api_key']);
      expect(errors['403']).toContain('invalid_api_key');
      expect(errors['429']).toEqual(['rate_limit_exceeded']);
    }
    // A token-scoped list: read keys may be refused, and sessions need X-Project-Id.
    expect(errorsOf('/suppressions', 'get')).toMatchObject({ '403': ['forbidden', 'invalid_api_key', 'restricted_api_key'], '422': ['missing_required_field', 'validation_error'] });
    // Sending accepts sending_access keys; its own idempotency errors stay listed.
    expect(errorsOf('/emails', 'post')['403']).toEqual(['domain_not_verified', 'forbidden', 'invalid_api_key']);
    expect(errorsOf('/emails', 'post')['409']).toEqual(['concurrent_idempotent_requests', 'invalid_idempotent_request']);
    expect(errorsOf('/emails', 'post')['413']).toEqual(['payload_too_large']);
    // The project is in the path: a project not the caller's is 404, and no header is needed.
    expect(errorsOf('/projects/{id}', 'get')['404']).toEqual(['not_found']);
    // A path parameter that cannot be valid names nothing: 404 too, never a 422.
    expect(errorsOf('/projects/{id}', 'get')['422']).toBeUndefined();
  });
  test('then its top-level webhooks list every event type, each with its own body schema and the headers of DESIGN §5', () => {
    expect(Object.keys(doc.webhooks).sort()).toEqual([...WEBHOOK_EVENT_TYPES, TEST_EVENT_TYPE].sort());
    const resolve = (ref: string) => doc.components.schemas[ref.replace('#/components/schemas/', '')];
    for (const type of [...WEBHOOK_EVENT_TYPES, TEST_EVENT_TYPE]) {
      const operation = doc.webhooks[type].post;
      const body = resolve(operation.requestBody.content['application/json'].schema.$ref);
      expect({ type, required: body.required, typeEnum: body.properties.type.enum }).toEqual({ type, required: ['id', 'type', 'created_at', 'data'], typeEnum: [type] });
      const data = resolve(body.properties.data.$ref);
      expect({ type, data: data?.type }).toEqual({ type, data: 'object' });
      expect(operation.parameters.filter((p: { in: string }) => p.in === 'header').map((p: { name: string }) => p.name).sort()).toEqual(
        ['content-type', 'user-agent', 'x-service-signature', 'x-service-event-id', 'x-service-event-type', 'x-service-timestamp', 'webhook-id', 'webhook-timestamp', 'webhook-signature'].sort(),
      );
      expect(Object.keys(operation.responses).sort()).toEqual(['2XX', '410', 'default']);
    }
    // Per-type data: outcome fields where they apply, the compact email.received.
    expect(resolve('#/components/schemas/EmailBouncedData').required).toContain('bounce');
    expect(Object.keys(resolve('#/components/schemas/EmailClickedData').properties)).toContain('click');
    expect(resolve('#/components/schemas/EmailReceivedData').required.sort()).toEqual(['created_at', 'email_id', 'from', 'route_id', 'subject', 'to']);
    expect(resolve('#/components/schemas/Domain').properties.object.enum).toEqual(['domain']);
  });
});
