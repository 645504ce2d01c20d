/** The CLI as a user runs it, for tests: `bin/routelens.mjs` as a child process, its exit code and both streams. */
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const REPO_ROOT = fileURLToPath(new URL('../..', import.meta.url));
export const CLI_BIN = join(REPO_ROOT, 'bin', 'routelens.mjs');

export interface CliRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

export function runCli(args: string[], options: { timeoutMs?: number; env?: NodeJS.ProcessEnv } = {}): CliRun {
  const r = spawnSync(process.execPath, [CLI_BIN, ...args], { encoding: 'utf8', cwd: REPO_ROOT, timeout: options.timeoutMs ?? 60_000, env: options.env });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}
