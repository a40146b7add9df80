// Generates the Prisma client from prisma/schema.prisma.
// Prisma's CLI insists on a native schema engine binary even though `generate` never runs it,
// and these machines cannot download one; any existing file satisfies the check.
const { spawnSync } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

const env = { ...process.env };
if (!env.PRISMA_SCHEMA_ENGINE_BINARY) {
  const placeholder = path.join(os.tmpdir(), 'mailroom-prisma-schema-engine-placeholder');
  fs.writeFileSync(placeholder, '');
  env.PRISMA_SCHEMA_ENGINE_BINARY = placeholder;
}
env.PRISMA_HIDE_UPDATE_MESSAGE = '1';
const cli = require.resolve('prisma/build/index.js');
const schema = path.resolve(__dirname, '../../../prisma/schema.prisma');
const result = spawnSync(process.execPath, [cli, 'generate', '--schema', schema], {
  env,
  stdio: 'inherit',
});
process.exit(result.status ?? 1);
