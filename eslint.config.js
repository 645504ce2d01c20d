import js from '@eslint/js';
import tseslint from 'typescript-eslint';

const nodeBuiltins = ['fs', 'path', 'os', 'child_process', 'worker_threads', 'http', 'crypto', 'url', 'stream', 'zlib'];
const nodeOnly = ['better-sqlite3', 'onnxruntime-node', 'electron'];

export default tseslint.config(
  { ignores: ['node_modules/**', 'dist/**', 'demo/**', 'test-results/**', 'playwright-report/**', '.tmp/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
    },
  },
  {
    files: ['**/*.mjs', 'scripts/**', 'bin/**'],
    languageOptions: { globals: { process: 'readonly', console: 'readonly', URL: 'readonly', setTimeout: 'readonly' } },
  },
  // Layers (STYLE §4): the renderer and shared/ never reach Node, the database or Electron.
  {
    files: ['renderer/**', 'shared/**'],
    ignores: ['**/*.test.ts', '**/*.test.tsx'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: nodeOnly.map((name) => ({ name, message: 'renderer/ and shared/ must not import Node-only modules' })),
          patterns: [
            { group: ['node:*', ...nodeBuiltins], message: 'no Node built-ins in renderer/ or shared/' },
            { group: ['**/electron/**'], message: 'go through the API contract in shared/' },
          ],
        },
      ],
    },
  },
  // Only electron/app/ may import 'electron'.
  {
    files: ['electron/**'],
    ignores: ['electron/app/**'],
    rules: {
      'no-restricted-imports': ['error', { paths: [{ name: 'electron', message: 'only electron/app/ imports electron' }] }],
    },
  },
);
