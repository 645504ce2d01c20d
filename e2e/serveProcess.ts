/** Runs the real CLI for the tests: `routelens import|info` to completion, `routelens serve` in the background. */
import { spawn, spawnSync } from 'node:child_process';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const CLI = join(root, 'bin', 'routelens.mjs');

export interface ServeProcess {
  url: string;
  stop(): Promise<void>;
}

export function cli(args: string[], timeoutMs = 120_000): string {
  const result = spawnSync(process.execPath, [CLI, ...args], { cwd: root, encoding: 'utf8', timeout: timeoutMs, maxBuffer: 64 * 1024 * 1024 });
  if (result.status !== 0) throw new Error(`routelens ${args.join(' ')} failed (${result.status}):\n${result.stderr}`);
  return result.stdout;
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

/** `routelens serve` on a SQLite file, or on a ClickHouse store when `source` is a clickhouse:// URL. */
export function startServe(source: string, port: number): Promise<ServeProcess> {
  const from = source.startsWith('clickhouse://') ? ['--store', source] : ['--db', source];
  const child = spawn(process.execPath, [CLI, 'serve', ...from, '--port', String(port)], {
    cwd: root,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const stop = () =>
    new Promise<void>((resolve) => {
      if (child.exitCode !== null) return resolve();
      child.once('exit', () => resolve());
      child.kill('SIGTERM');
      setTimeout(() => child.kill('SIGKILL'), 5000).unref();
    });
  return new Promise((resolve, reject) => {
    let out = '';
    let err = '';
    const timer = setTimeout(() => {
      void stop();
      reject(new Error(`routelens serve printed no URL within 30 s:\n${out}\n${err}`));
    }, 30_000);
    child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const match = out.match(/http:\/\/127\.0\.0\.1:\d+\/\?token=[0-9a-f]+/);
      if (match) {
        clearTimeout(timer);
        resolve({ url: match[0], stop });
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`routelens serve exited (${code}) before printing its URL:\n${err}`));
    });
  });
}
