// Compares two V8 heap snapshots: count and self size per (type, constructor name), biggest growth first.
// Usage: node test/soak/snapshot-diff.cjs before.heapsnapshot after.heapsnapshot [top]
const fs = require('node:fs');

function summarize(file) {
  const snap = JSON.parse(fs.readFileSync(file, 'utf8'));
  const fields = snap.snapshot.meta.node_fields;
  const types = snap.snapshot.meta.node_types[0];
  const [iType, iName, iSize] = ['type', 'name', 'self_size'].map((f) => fields.indexOf(f));
  const step = fields.length;
  const nodes = snap.nodes;
  const out = new Map();
  for (let i = 0; i < nodes.length; i += step) {
    const type = types[nodes[i + iType]];
    let name = snap.strings[nodes[i + iName]];
    if (type === 'string' || type === 'concatenated string' || type === 'sliced string') name = '(string)';
    if (type === 'code' || type === 'hidden') name = `(${type})`;
    if (name && name.length > 60) name = name.slice(0, 60);
    const key = `${type}\t${name}`;
    const e = out.get(key) ?? { count: 0, size: 0 };
    e.count++;
    e.size += nodes[i + iSize];
    out.set(key, e);
  }
  return out;
}

const [a, b, top = '30'] = process.argv.slice(2);
const before = summarize(a);
const after = summarize(b);
const rows = [];
for (const [key, e] of after) {
  const p = before.get(key) ?? { count: 0, size: 0 };
  rows.push({ key, dCount: e.count - p.count, dSize: e.size - p.size, count: e.count });
}
for (const [key, p] of before) if (!after.has(key)) rows.push({ key, dCount: -p.count, dSize: -p.size, count: 0 });
rows.sort((x, y) => y.dSize - x.dSize);
console.log('dSize\tdCount\tcount\ttype\tname');
for (const r of rows.slice(0, Number(top))) console.log(`${r.dSize}\t${r.dCount}\t${r.count}\t${r.key}`);
rows.sort((x, y) => y.dCount - x.dCount);
console.log('--- by count');
for (const r of rows.slice(0, Number(top))) console.log(`${r.dSize}\t${r.dCount}\t${r.count}\t${r.key}`);
