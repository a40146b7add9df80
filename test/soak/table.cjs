// Prints the soak logs' samples as a table: node test/soak/table.cjs /tmp/mailroom-soak-*.log
const fs = require('node:fs');
for (const file of process.argv.slice(2)) {
  for (const line of fs.readFileSync(file, 'utf8').split('\n')) {
    const m = /^(\S+)\t(phase\d+)\t.*?(\{"heapMB".*\})$/.exec(line);
    if (!m) continue;
    const s = JSON.parse(m[3]);
    console.log([m[1].padEnd(18), m[2].padEnd(7), `heap ${s.heapMB}`.padEnd(11), `rss ${s.rssMB}`.padEnd(10), `fds ${s.fds}`, `tcp ${s.tcp}`, `pg ${s.pg}`, `redis ${s.redis}`, `warn ${s.warnings}`, s.res, s.snapshot ? '(snapshot)' : ''].join('  '));
  }
}
