#!/usr/bin/env node
/**
 * `npm run checks`: the static checks of `npm test` (typecheck, lint, lint:electron), two at a time. Each is one
 * busy process, so on CI's two cores they overlap instead of running one after another (45 s → 36 s measured here).
 * Each check's output is printed whole when it ends; the exit code is the first failure's, or 0.
 */
import { spawn } from 'node:child_process';

const CHECKS = ['typecheck', 'lint', 'lint:electron'];
const LANES = 2;
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';

/** Runs one npm script, its stdout and stderr kept together in order. */
function run(name) {
  return new Promise((resolve) => {
    const started = Date.now();
    const child = spawn(npm, ['run', '--silent', name], { stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (d) => (output += d));
    child.stderr.on('data', (d) => (output += d));
    child.on('close', (code, signal) => {
      const seconds = ((Date.now() - started) / 1000).toFixed(1);
      process.stdout.write(`── ${name}: ${code === 0 ? 'ok' : `failed (${signal ?? `exit ${code}`})`} in ${seconds} s\n${output}`);
      resolve(code ?? 1);
    });
  });
}

const queue = [...CHECKS];
const codes = await Promise.all(
  Array.from({ length: LANES }, async () => {
    const mine = [];
    for (let name = queue.shift(); name !== undefined; name = queue.shift()) mine.push(await run(name));
    return mine;
  }),
);
process.exit(codes.flat().find((c) => c !== 0) ?? 0);
