import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { GENERATED_TYPES_PATH, generateOpenApiTypes } from './openapi-types';

/**
 * Writes src/generated/openapi.ts from the gateway's OpenAPI document; with `--check [file]`,
 * writes nothing and exits 1 if that file (default the committed one) differs from what would be written.
 */
async function main(): Promise<void> {
  const target = path.join(__dirname, '..', GENERATED_TYPES_PATH);
  const fresh = await generateOpenApiTypes();
  const checkAt = process.argv.indexOf('--check');
  if (checkAt !== -1) {
    const checked = process.argv[checkAt + 1] ?? target;
    if (readFileSync(checked, 'utf8') === fresh) return;
    console.error(`${path.relative(process.cwd(), checked)} differs from the gateway's OpenAPI document: run \`pnpm --filter @mailroom/client generate\` and commit it.`);
    process.exitCode = 1;
    return;
  }
  writeFileSync(target, fresh);
  console.log(`wrote ${path.relative(process.cwd(), target)}`);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
