import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { GENERATED_TYPES_PATH, generateOpenApiTypes } from './openapi-types';

/** Writes src/generated/openapi.ts from the gateway's OpenAPI document. */
async function main(): Promise<void> {
  const target = path.join(__dirname, '..', GENERATED_TYPES_PATH);
  writeFileSync(target, await generateOpenApiTypes());
  console.log(`wrote ${path.relative(process.cwd(), target)}`);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
