/**
 * What grew between two heap snapshots of one process (node --heapsnapshot-signal, or
 * bench/soak.js --heap-snapshots): the objects of each kind (constructor, closure, string,
 * array, …), their number and their own size in each, the largest growth first.
 *
 *   node bench/heap-diff.js BEFORE.heapsnapshot AFTER.heapsnapshot [--top 30]
 *
 * Only what a snapshot holds is counted: what is reachable when it is taken (V8 collects the
 * garbage first), not the memory V8 keeps for its spaces, nor what native code allocates.
 */
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: { top: { type: 'string', default: '30' } },
});
if (positionals.length !== 2) {
  console.error('usage: node bench/heap-diff.js BEFORE.heapsnapshot AFTER.heapsnapshot [--top N]');
  process.exit(2);
}

/** Count and own size by kind: `Type name` (`object Plant`, `closure handleEdge`, `string`). */
function kindsOf(file) {
  const snapshot = JSON.parse(readFileSync(file, 'utf8'));
  const {
    node_fields: fields,
    node_types: [types],
  } = snapshot.snapshot.meta;
  const width = fields.length;
  const typeAt = fields.indexOf('type');
  const nameAt = fields.indexOf('name');
  const sizeAt = fields.indexOf('self_size');
  const kinds = new Map();
  let total = 0;
  for (let index = 0; index < snapshot.nodes.length; index += width) {
    const type = types[snapshot.nodes[index + typeAt]];
    const size = snapshot.nodes[index + sizeAt];
    // Strings and numbers by their type alone: their names are their values.
    const kind = ['object', 'closure', 'native', 'hidden', 'code'].includes(type)
      ? `${type} ${snapshot.strings[snapshot.nodes[index + nameAt]]}`
      : type;
    const entry = kinds.get(kind) ?? { count: 0, size: 0 };
    entry.count++;
    entry.size += size;
    total += size;
    kinds.set(kind, entry);
  }
  return { kinds, total };
}

const before = kindsOf(positionals[0]);
const after = kindsOf(positionals[1]);
const rows = [...new Set([...before.kinds.keys(), ...after.kinds.keys()])].map((kind) => {
  const was = before.kinds.get(kind) ?? { count: 0, size: 0 };
  const is = after.kinds.get(kind) ?? { count: 0, size: 0 };
  return { kind, count: is.count - was.count, size: is.size - was.size, now: is };
});
const kb = (bytes) => `${(bytes / 1024).toFixed(1)} KB`;
console.log(
  `Reachable: ${kb(before.total)} before, ${kb(after.total)} after (${after.total >= before.total ? '+' : ''}${kb(after.total - before.total)})\n`,
);
console.log('    growth (size)   growth (count)   now (count, size)   kind');
for (const row of rows.sort((a, b) => b.size - a.size).slice(0, Number(values.top))) {
  console.log(
    `${kb(row.size).padStart(16)} ${String(row.count).padStart(16)}   ${String(row.now.count).padStart(8)} ${kb(row.now.size).padStart(11)}   ${row.kind}`,
  );
}
