/**
 * Builds the renderer (renderer/ → dist/renderer). `base: './'` keeps every asset URL relative, so the same
 * build loads from the desktop window's app:// origin and from `routelens serve` at the server root.
 * The build emits scripts and styles as files only: both hosts send a CSP without 'unsafe-inline'.
 */
import react from '@vitejs/plugin-react';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

export default defineConfig({
  root: fileURLToPath(new URL('./renderer', import.meta.url)),
  base: './',
  plugins: [react()],
  build: {
    // ROUTELENS_RENDERER_OUT lets parallel work build and serve its own copy (serve.ts reads the same variable).
    outDir: process.env.ROUTELENS_RENDERER_OUT || fileURLToPath(new URL('./dist/renderer', import.meta.url)),
    emptyOutDir: true,
    target: 'es2022',
    sourcemap: true,
    // Inline nothing as data: URLs either; the CSP allows data: for images only.
    assetsInlineLimit: 0,
  },
});
