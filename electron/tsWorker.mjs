// Starts a TypeScript worker-thread module under tsx, as bin/routelens.mjs starts the CLI: worker threads do not
// inherit the main thread's loader hooks. workerData.tsEntry is the module's file URL.
import { workerData } from 'node:worker_threads';
import { register } from 'tsx/esm/api';

register();
await import(workerData.tsEntry);
