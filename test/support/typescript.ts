/**
 * How a script of a project that uses @plant-store/client is type-checked,
 * with no tsconfig of its own: strict, an ES module or CommonJS as its
 * extension says (`nodenext`), with Node.js's types, and the packages'
 * declarations taken as they are.
 */
export const CONSUMER_TSC_OPTIONS: readonly string[] = [
  '--ignoreConfig',
  '--noEmit',
  '--strict',
  '--module',
  'nodenext',
  '--target',
  'es2022',
  '--types',
  'node',
  '--skipLibCheck',
];
