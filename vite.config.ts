/**
 * Builds the renderer (renderer/ → dist/renderer). `base: './'` keeps every asset URL relative, so the same
 * build loads from the desktop window's app:// origin and from `routelens serve` at the server root.
 * The build emits scripts and styles as files only: both hosts send a CSP without 'unsafe-inline'.
 */
import react from '@vitejs/plugin-react';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build, defineConfig, type Plugin } from 'vite';
import { caseViewerConfig } from './vite.case.config.ts';

// ROUTELENS_RENDERER_OUT lets parallel work build and serve its own copy (serve.ts reads the same variable).
const outDir = process.env.ROUTELENS_RENDERER_OUT || fileURLToPath(new URL('./dist/renderer', import.meta.url));

/** The shared case's viewer (vite.case.config.ts) is built with the renderer, into its case/ folder. */
function caseViewer(): Plugin {
  return {
    name: 'routelens-case-viewer',
    apply: 'build',
    async closeBundle() {
      await build(caseViewerConfig(join(outDir, 'case')));
    },
  };
}

export default defineConfig({
  root: fileURLToPath(new URL('./renderer', import.meta.url)),
  base: './',
  plugins: [react(), caseViewer()],
  build: {
    outDir,
    emptyOutDir: true,
    target: 'es2022',
    sourcemap: true,
    // Inline nothing as data: URLs either; the CSP allows data: for images only.
    assetsInlineLimit: 0,
  },
});
