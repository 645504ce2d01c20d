/**
 * Starts one of RouteLens's worker threads: the bundled `<name>.cjs` beside main.cjs in the desktop build
 * (scripts/build-electron.mjs), else the TypeScript module under tsx through tsWorker.mjs (CLI, serve, tests:
 * worker threads do not inherit the main thread's loader hooks). `workerData` reaches the module unchanged.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';

export function startWorker(name: string, tsModule: URL, workerData: object): Worker {
  // The desktop bundle is CommonJS: __dirname is dist/electron there, undefined in ESM.
  const bundled = typeof __dirname === 'string' ? join(__dirname, `${name}.cjs`) : null;
  if (bundled && existsSync(bundled)) return new Worker(bundled, { workerData });
  return new Worker(new URL('./tsWorker.mjs', import.meta.url), { workerData: { ...workerData, tsEntry: tsModule.href } });
}
