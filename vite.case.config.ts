/**
 * Builds the viewer of a shared case (renderer/case/) into one script and one stylesheet, case.js and case.css, that
 * the core inlines into each case file (electron/export/caseHtml.ts). vite.config.ts runs this build after the
 * renderer's, into its output's case/ folder, so every build of the renderer (npm start, npm test, CI) has it.
 *
 * The viewer is the app's own views: where they import the API (renderer/api/index.ts), this build gives them
 * renderer/case/caseApi.ts, which answers from the data the file carries.
 */
import react from '@vitejs/plugin-react';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { InlineConfig, Plugin } from 'vite';

const here = (path: string): string => fileURLToPath(new URL(path, import.meta.url));
const API_MODULE = here('./renderer/api/index.ts');
const CASE_API_MODULE = here('./renderer/case/caseApi.ts');

/** Every import of the app's API module (by relative path) becomes the case's. */
function caseApi(): Plugin {
  return {
    name: 'routelens-case-api',
    enforce: 'pre',
    resolveId(source, importer) {
      if (!importer || !source.startsWith('.')) return null;
      return resolve(dirname(importer), source) === API_MODULE ? CASE_API_MODULE : null;
    },
  };
}

export function caseViewerConfig(outDir: string): InlineConfig {
  return {
    configFile: false,
    root: here('./renderer/case'),
    base: './',
    logLevel: 'warn',
    plugins: [react(), caseApi()],
    build: {
      outDir,
      emptyOutDir: true,
      target: 'es2022',
      sourcemap: false,
      assetsInlineLimit: 0,
      cssCodeSplit: false,
      copyPublicDir: false,
      // One script by design: the file inlines it (about 1 MB, a fixed cost beside the case's data).
      chunkSizeWarningLimit: 1500,
      rolldownOptions: {
        input: here('./renderer/case/main.tsx'),
        output: { format: 'iife', entryFileNames: 'case.js', assetFileNames: 'case[extname]' },
      },
    },
  };
}
