#!/usr/bin/env node
// Starts the CLI from its bundle in dist/cli (npm run build:cli; npm ci and npm test build it), or from the TypeScript
// source through tsx's loader when that bundle is missing or older than the source: slower, never out of date.
// ROUTELENS_CLI_SOURCE=1 runs from source without a word (to debug with the sources' stack traces).
import module from 'node:module';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { freshness } from './cliBundle.mjs';

// Node 22.1+ keeps V8's compiled code of the bundle and its packages on disk (checked against each file's contents),
// so a start after the first compiles almost nothing; Node 20 has no such cache and starts as before.
module.enableCompileCache?.();

// `routelens … --json | head` closes the pipe early: that is the reader's choice, not an error.
process.stdout.on('error', (err) => {
  if (err.code === 'EPIPE') process.exit(0);
  throw err;
});

const root = fileURLToPath(new URL('..', import.meta.url));
const bundle = process.env.ROUTELENS_CLI_SOURCE === '1' ? null : freshness(root);
let main;
if (bundle?.fresh) {
  ({ main } = await import(pathToFileURL(bundle.entry).href));
} else {
  if (bundle?.why === 'missing') process.stderr.write('routelens: no built CLI in dist/cli (npm run build:cli); running from source, slower\n');
  if (bundle?.why === 'stale') process.stderr.write(`routelens: the built CLI in dist/cli is older than ${bundle.path} (npm run build:cli); running from source, slower\n`);
  const { register } = await import('tsx/esm/api');
  register();
  ({ main } = await import('../electron/cli/main.ts'));
}
process.exitCode = await main(process.argv.slice(2));
