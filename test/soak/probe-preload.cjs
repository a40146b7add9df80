// Soak probe, loaded with --require into a service under test (never in the product).
// On SIGUSR2: two full GCs, then writes heap/RSS/handle counts to $SOAK_DIR/<pid>.json;
// if $SOAK_DIR/<pid>.snapshot exists, also writes a heap snapshot (path in the JSON).
const fs = require('node:fs');
const path = require('node:path');
const v8 = require('node:v8');

const dir = process.env.SOAK_DIR;
if (dir) {
  process.on('SIGUSR2', () => {
    globalThis.gc?.();
    globalThis.gc?.();
    const mem = process.memoryUsage();
    const resources = {};
    for (const r of process.getActiveResourcesInfo()) resources[r] = (resources[r] ?? 0) + 1;
    const out = { at: Date.now(), heapUsed: mem.heapUsed, rss: mem.rss, external: mem.external, arrayBuffers: mem.arrayBuffers, resources };
    const request = path.join(dir, `${process.pid}.snapshot`);
    if (fs.existsSync(request)) {
      const label = fs.readFileSync(request, 'utf8').trim() || String(Date.now());
      fs.unlinkSync(request);
      out.snapshot = v8.writeHeapSnapshot(path.join(dir, `${process.pid}-${label}.heapsnapshot`));
    }
    fs.writeFileSync(path.join(dir, `${process.pid}.json.tmp`), JSON.stringify(out));
    fs.renameSync(path.join(dir, `${process.pid}.json.tmp`), path.join(dir, `${process.pid}.json`));
  });
}
