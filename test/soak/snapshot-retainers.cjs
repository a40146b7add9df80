// Shows, for objects named NAME in a V8 heap snapshot, their property names and retainer chains.
// Usage: node test/soak/snapshot-retainers.cjs file.heapsnapshot NAME [samples] [depth]
const fs = require('node:fs');
const [file, wanted, samples = '3', depth = '8'] = process.argv.slice(2);
const snap = JSON.parse(fs.readFileSync(file, 'utf8'));
const meta = snap.snapshot.meta;
const nf = meta.node_fields.length;
const ef = meta.edge_fields.length;
const nTypes = meta.node_types[0];
const eTypes = meta.edge_types[0];
const N = snap.nodes.length / nf;
const iName = meta.node_fields.indexOf('name');
const iType = meta.node_fields.indexOf('type');
const iEdges = meta.node_fields.indexOf('edge_count');
const iId = meta.node_fields.indexOf('id');
const firstEdge = new Uint32Array(N + 1);
for (let n = 0, e = 0; n < N; n++) {
  firstEdge[n] = e;
  e += snap.nodes[n * nf + iEdges] * ef;
  firstEdge[n + 1] = e;
}
const name = (n) => snap.strings[snap.nodes[n * nf + iName]];
const type = (n) => nTypes[snap.nodes[n * nf + iType]];
const edgeName = (e) => {
  const t = eTypes[snap.edges[e]];
  const v = snap.edges[e + 1];
  return t === 'element' || t === 'hidden' ? `[${v}]` : snap.strings[v];
};
const retainers = new Map();
for (let n = 0; n < N; n++) {
  for (let e = firstEdge[n]; e < firstEdge[n + 1]; e += ef) {
    if (eTypes[snap.edges[e]] === 'weak') continue;
    const to = snap.edges[e + 2] / nf;
    let list = retainers.get(to);
    if (!list) {
      list = [];
      retainers.set(to, list);
    }
    if (list.length < 6) list.push([n, edgeName(e)]);
  }
}
const matches = [];
for (let n = 0; n < N; n++) if (name(n) === wanted && type(n) === 'object') matches.push(n);
console.log(`${matches.length} objects named ${wanted}`);
// Group by property set, to tell apart classes with the same name.
const groups = new Map();
for (const n of matches) {
  const props = [];
  for (let e = firstEdge[n]; e < firstEdge[n + 1]; e += ef) if (eTypes[snap.edges[e]] === 'property') props.push(edgeName(e));
  const key = props.slice(0, 12).join(',');
  const g = groups.get(key) ?? [];
  g.push(n);
  groups.set(key, g);
}
for (const [key, g] of groups) {
  console.log(`\n== ${g.length} with properties: ${key}`);
  for (const n of g.slice(-Number(samples))) {
    console.log(`-- @${snap.nodes[n * nf + iId]}`);
    let frontier = [[n, '']];
    const seen = new Set([n]);
    for (let d = 0; d < Number(depth) && frontier.length; d++) {
      const next = [];
      for (const [m, path] of frontier) {
        for (const [r, via] of retainers.get(m) ?? []) {
          if (seen.has(r)) continue;
          seen.add(r);
          const line = `${path}  <-${via}- ${type(r)}:${(name(r) || '').slice(0, 50)}`;
          if (d === Number(depth) - 1 || !(retainers.get(r) ?? []).length) console.log(line);
          next.push([r, line]);
        }
      }
      frontier = next.slice(0, 4);
    }
    for (const [, line] of frontier) console.log(line);
  }
}
