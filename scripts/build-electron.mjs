#!/usr/bin/env node
/**
 * Bundles the Electron main process and preload into CommonJS (`npm run build:electron`):
 *   electron/app/main.ts    → dist/electron/main.cjs
 *   electron/app/preload.ts → dist/electron/preload.cjs  (self-contained: sandboxed preloads can require
 *                                                         only 'electron' and a few built-ins)
 *   electron/estimator/estimatorWorker.ts → dist/electron/estimatorWorker.cjs (training and scoring thread)
 *   electron/analysis/analysisWorker.ts   → dist/electron/analysisWorker.cjs (the API's analyses and figure files)
 *   electron/store/clickhouse/import/rangeWorker.ts → dist/electron/rangeWorker.cjs (a store import's range threads)
 * Native modules and Electron stay external.
 *
 * The preload needs only the contract's call names; importing shared/api.ts as is would pull all of zod into
 * it (750 kB). So for the preload, shared/api.ts is replaced by a module holding `API_NAMES`, read from the
 * real contract at build time: one source of truth, a ~2 kB preload.
 *
 * The sources are ESM and find their data files with `new URL('../../models/pool.json', import.meta.url)`.
 * CJS has no import.meta, so each occurrence is rewritten to the file URL of that module's *source* path,
 * computed from the bundle's own __dirname at run time. Relative data paths then resolve exactly as they do
 * unbundled, from the repository or from inside app.asar alike. Any other use of import.meta fails the build.
 *
 * Options: --outdir DIR (default dist/electron), --quiet.
 */
import { readFile } from 'node:fs/promises';
import { dirname, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { build } from 'esbuild';
import { tsImport } from 'tsx/esm/api';

const root = fileURLToPath(new URL('..', import.meta.url));
const { values } = parseArgs({ options: { outdir: { type: 'string' }, quiet: { type: 'boolean' } } });
const outdir = resolve(values.outdir ?? resolve(root, 'dist', 'electron'));

/** @type {import('esbuild').Plugin} */
const importMetaUrlPlugin = {
  name: 'import-meta-url-to-source',
  setup(b) {
    b.onLoad({ filter: /\.[cm]?[jt]sx?$/ }, async (args) => {
      const text = await readFile(args.path, 'utf8');
      if (!text.includes('import.meta.url')) return undefined;
      const fromBundle = relative(outdir, args.path).split(sep).join('/');
      const expr = `require("node:url").pathToFileURL(require("node:path").join(__dirname, ${JSON.stringify(fromBundle)})).href`;
      const ext = args.path.slice(args.path.lastIndexOf('.') + 1);
      const loader = ext.startsWith('ts') || ext === 'mts' || ext === 'cts' ? 'ts' : ext === 'tsx' ? 'tsx' : 'js';
      return { contents: text.replaceAll('import.meta.url', expr), loader, resolveDir: dirname(args.path) };
    });
  },
};

const contractPath = resolve(root, 'shared', 'api.ts');
const { API_NAMES } = await tsImport(contractPath, import.meta.url);

/** @type {import('esbuild').Plugin} */
const contractNamesOnlyPlugin = {
  name: 'contract-names-only',
  setup(b) {
    b.onResolve({ filter: /shared\/api(\.ts)?$/ }, (args) => {
      if (resolve(args.resolveDir, args.path) !== contractPath && resolve(args.resolveDir, `${args.path}.ts`) !== contractPath) {
        return undefined;
      }
      return { path: 'shared/api.ts', namespace: 'contract-names' };
    });
    b.onLoad({ filter: /.*/, namespace: 'contract-names' }, () => ({
      contents: `// API_NAMES of shared/api.ts, read at build time.\nexport const API_NAMES = ${JSON.stringify(API_NAMES)};\n`,
      loader: 'js',
    }));
  },
};

const common = {
  bundle: true,
  format: 'cjs',
  platform: 'node',
  target: 'node22',
  outExtension: { '.js': '.cjs' },
  outdir,
  // Native addons and packages that read their own data files at run time stay in node_modules.
  // jsonc-parser: its CommonJS entry is a UMD wrapper esbuild cannot follow (electron/importers/jsonDocument.ts).
  external: ['electron', 'better-sqlite3', 'onnxruntime-node', '@resvg/resvg-js', 'pdfkit', 'jsonc-parser'],
  sourcemap: 'linked',
  logLevel: values.quiet ? 'error' : 'info',
  logOverride: { 'empty-import-meta': 'error' },
  plugins: [importMetaUrlPlugin],
  absWorkingDir: root,
};

try {
  await Promise.all([
    build({ ...common, entryPoints: { main: resolve(root, 'electron/app/main.ts') } }),
    // Worker threads of the main process (estimatorJobs.ts and analysisThread.ts look for them beside main.cjs).
    build({ ...common, entryPoints: { estimatorWorker: resolve(root, 'electron/estimator/estimatorWorker.ts') } }),
    build({ ...common, entryPoints: { analysisWorker: resolve(root, 'electron/analysis/analysisWorker.ts') } }),
    build({ ...common, entryPoints: { rangeWorker: resolve(root, 'electron/store/clickhouse/import/rangeWorker.ts') } }),
    build({
      ...common,
      entryPoints: { preload: resolve(root, 'electron/app/preload.ts') },
      plugins: [contractNamesOnlyPlugin, importMetaUrlPlugin],
    }),
  ]);
  if (!values.quiet) console.log(`Electron bundles written to ${relative(process.cwd(), outdir) || '.'}`);
} catch (err) {
  console.error(`build-electron failed: ${err instanceof Error ? err.message : String(err)}`);
  process.exitCode = 1;
}
