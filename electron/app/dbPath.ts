/** Which database the desktop app opens: `--db FILE` on the command line, else `ROUTELENS_DB`, else the demo. */
import { resolve } from 'node:path';

export interface DbChoice {
  path: string;
  source: 'argv' | 'env' | 'demo';
}

/** The value of `--db FILE` or `--db=FILE` in an argv (Electron's, which starts with the binary and script). */
export function dbArg(argv: readonly string[]): string | undefined {
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] as string;
    if (arg === '--db') return argv[i + 1] || undefined;
    if (arg.startsWith('--db=')) return arg.slice(5) || undefined;
  }
  return undefined;
}

export function chooseDatabase(
  argv: readonly string[],
  env: Readonly<Record<string, string | undefined>>,
  demoPath: string,
  cwd: string = process.cwd(),
): DbChoice {
  const fromArgv = dbArg(argv);
  if (fromArgv) return { path: resolve(cwd, fromArgv), source: 'argv' };
  const fromEnv = env.ROUTELENS_DB;
  if (fromEnv) return { path: resolve(cwd, fromEnv), source: 'env' };
  return { path: demoPath, source: 'demo' };
}
