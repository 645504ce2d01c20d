#!/usr/bin/env node
/**
 * Bundles the `routelens` command (`npm run build:cli`, also run by `npm ci` through `prepare` and by `npm test`)
 * so bin/routelens.mjs starts it without tsx:
 *   electron/cli/main.ts → dist/cli/<build>/main.mjs, ESM with code splitting: each command (electron/cli/*.ts, loaded
 *   by main.ts with import()) is its own chunk beside it, so `routelens --help` loads the command table alone.
 * Packages stay in node_modules (native addons, ONNX Runtime, DuckDB, resvg, and the pure-JS ones alike): only the
 * project's own code is bundled, so `npm ci` never leaves a bundle holding other versions than node_modules.
 *
 * The sources find their data files and worker modules with `new URL('../../models/pool.json', import.meta.url)`.
 * In a chunk import.meta.url is the chunk's URL, so each occurrence becomes that module's *source* URL, relative to
 * the chunk: data files resolve as unbundled, and worker threads start from the TypeScript source through
 * electron/tsWorker.mjs (startWorker.ts), as they do when the CLI runs from source.
 *
 * Staleness (the bin never runs a bundle older than its sources): each input is read here with its size and mtime
 * taken around the read, and dist/cli/current.json records them with the build's folder. bin/routelens.mjs compares
 * them with the files (one stat each, about a millisecond in all) and runs from source, saying so, when any differ.
 * A build is written into a temporary folder and renamed into place, then current.json is replaced by rename: a
 * process starting meanwhile reads the old build or the new one, whole, and a running process keeps its own build's
 * folder (its chunks are loaded later), so superseded builds are removed only a day after.
 *
 * Options: --outdir DIR (default dist/cli), --force (build even when current.json is fresh), --quiet,
 * --if-possible (`prepare`: without esbuild, as after `npm ci --omit=dev`, say so and leave the bin to run from source).
 */
import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { freshness } from '../bin/cliBundle.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const { values } = parseArgs({ options: { outdir: { type: 'string' }, force: { type: 'boolean' }, quiet: { type: 'boolean' }, 'if-possible': { type: 'boolean' } } });
const outRoot = resolve(values.outdir ?? join(root, 'dist', 'cli'));
const say = (text) => {
  if (!values.quiet) console.log(text);
};

/** A day: a process started from a superseded build may still load its chunks until then. */
const KEEP_SUPERSEDED_MS = 24 * 60 * 60 * 1000;

/** Files the bundle depends on besides its modules: the build's own settings. */
const SETTINGS = ['scripts/build-cli.mjs', 'bin/cliBundle.mjs', 'tsconfig.json'];

/** Size and mtime of a file as read: taken before and after the read, retried while the file changes under us. */
function readStable(path) {
  for (;;) {
    const before = statSync(path);
    const text = readFileSync(path, 'utf8');
    const after = statSync(path);
    if (before.mtimeMs === after.mtimeMs && before.size === after.size) return { text, size: after.size, mtimeMs: after.mtimeMs };
  }
}

const current = freshness(root, outRoot);
if (current.fresh && !values.force) {
  say(`CLI bundle ${relative(process.cwd(), join(outRoot, current.build)) || '.'} is up to date`);
  process.exit(0);
}

let build;
try {
  ({ build } = await import('esbuild'));
} catch {
  console.error(`build-cli: esbuild is not installed (a devDependency: npm ci installs it)${values['if-possible'] ? '; routelens will run from source' : ''}`);
  process.exit(values['if-possible'] ? 0 : 1);
}

const id = `${Date.now().toString(36)}-${process.pid}`;
// A sibling of the final folder: the relative source paths written into the chunks hold after the rename.
const tmpDir = join(outRoot, `.tmp-${id}`);
const finalDir = join(outRoot, id);
/** @type {Map<string, [number, number]>} relative path → [size, mtimeMs] of what was bundled */
const inputs = new Map();
for (const p of SETTINGS) {
  const s = statSync(join(root, p));
  inputs.set(p, [s.size, s.mtimeMs]);
}

/** @type {import('esbuild').Plugin} */
const sourcesAsRead = {
  name: 'sources-as-read',
  setup(b) {
    b.onLoad({ filter: /\.(m?[jt]s|tsx|json)$/ }, (args) => {
      if (args.path.includes(`${sep}node_modules${sep}`)) return undefined;
      const { text, size, mtimeMs } = readStable(args.path);
      inputs.set(relative(root, args.path).split(sep).join('/'), [size, mtimeMs]);
      const ext = args.path.slice(args.path.lastIndexOf('.') + 1);
      const loader = ext === 'json' ? 'json' : ext === 'tsx' ? 'tsx' : ext.endsWith('ts') ? 'ts' : 'js';
      if (!text.includes('import.meta.url')) return { contents: text, loader };
      const fromChunk = relative(tmpDir, args.path).split(sep).join('/');
      return { contents: text.replaceAll('import.meta.url', `new URL(${JSON.stringify(fromChunk)}, import.meta.url).href`), loader, resolveDir: dirname(args.path) };
    });
  },
};

mkdirSync(outRoot, { recursive: true });
try {
  const { metafile } = await build({
    metafile: true,
    entryPoints: { main: join(root, 'electron', 'cli', 'main.ts') },
    bundle: true,
    format: 'esm',
    splitting: true,
    platform: 'node',
    target: 'node20',
    packages: 'external',
    outdir: tmpDir,
    outExtension: { '.js': '.mjs' },
    // No source maps: Node reads them only with --enable-source-maps; ROUTELENS_CLI_SOURCE=1 gives the sources' stack traces.
    logLevel: values.quiet ? 'error' : 'warning',
    plugins: [sourcesAsRead],
    absWorkingDir: root,
  });
  // Every file in the bundle must be one whose size and mtime are recorded, or a change to it would go unseen.
  const unrecorded = Object.keys(metafile.inputs).filter((p) => !inputs.has(p));
  if (unrecorded.length > 0) throw new Error(`inputs read without a record of their state: ${unrecorded.join(', ')}`);
  renameSync(tmpDir, finalDir);
  const pointer = join(outRoot, `current.json.${id}`);
  writeFileSync(pointer, `${JSON.stringify({ build: id, entry: 'main.mjs', inputs: [...inputs].map(([path, [size, mtimeMs]]) => [path, size, mtimeMs]) })}\n`);
  renameSync(pointer, join(outRoot, 'current.json'));
} catch (err) {
  rmSync(tmpDir, { recursive: true, force: true });
  console.error(`build-cli failed: ${err instanceof Error ? err.message : String(err)}`);
  process.exit(1);
}

// Superseded builds and abandoned temporary folders, once no process can still be loading from them.
for (const name of readdirSync(outRoot)) {
  if (name === id || name === 'current.json') continue;
  const path = join(outRoot, name);
  if (Date.now() - statSync(path).mtimeMs > KEEP_SUPERSEDED_MS) rmSync(path, { recursive: true, force: true });
}
say(`CLI bundle written to ${relative(process.cwd(), finalDir) || '.'} (${inputs.size} inputs)`);
