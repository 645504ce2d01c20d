/**
 * `npm run lint:electron` (second step): fails when any TypeScript module of the app, its fixtures, scripts or
 * benchmarks imports itself round a circle. Prints each circle as `a.ts → b.ts → a.ts`, exits 1 if there is one.
 * Circles are how folders stop saying what they hold: two modules that need each other are one module in two files.
 */
import { fileURLToPath } from 'node:url';
import { findImportCycles, formatCycle, readImportGraph } from './importCycles.ts';

// An argument names another root to check (the test points it at a made-up project).
const root = process.argv[2] ?? fileURLToPath(new URL('..', import.meta.url));
const DIRS = ['electron', 'shared', 'renderer', 'fixtures', 'scripts', 'bench'];

const started = performance.now();
const graph = readImportGraph(root, DIRS);
const cycles = findImportCycles(graph);
const ms = Math.round(performance.now() - started);
for (const cycle of cycles) console.log(formatCycle(cycle));
console.log(`import cycles: ${cycles.length} among ${graph.size} modules (${ms} ms)`);
process.exitCode = cycles.length > 0 ? 1 : 0;
