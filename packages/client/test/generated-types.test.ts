import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

// openapi-typescript is ESM-only and jest runs CommonJS: the check runs in a child Node process.
const packageDir = path.join(__dirname, '..');
const check = (...file: string[]) =>
  spawnSync(process.execPath, ['--import', 'tsx', 'scripts/generate-types.ts', '--check', ...file], { cwd: packageDir, encoding: 'utf8', timeout: 120_000 });

describe('the generated types', () => {
  test('when generated again from the gateway’s OpenAPI document, then they equal the committed src/generated/openapi.ts, and a drifted copy is caught', () => {
    const clean = check();
    expect(clean.stderr).toBe('');
    expect(clean.status).toBe(0);

    const dir = mkdtempSync(path.join(tmpdir(), 'mailroom-types-'));
    try {
      const drifted = path.join(dir, 'openapi.ts');
      writeFileSync(drifted, readFileSync(path.join(packageDir, 'src/generated/openapi.ts'), 'utf8').replace('"/emails/batch"', '"/emails/bulk"'));
      const result = check(drifted);
      expect(result.status).toBe(1);
      expect(result.stderr).toMatch(/differs from the gateway's OpenAPI document/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 120_000);
});
