// bin/routelens.mjs chooses between the built bundle and the source: in a copy of the bin beside links to this checkout's
// sources, with a bundle built into that copy's dist/cli, so this checkout's own bundle is never touched.
import { spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, readdirSync, rmSync, statSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { freshness } from '../../bin/cliBundle.mjs';
import { useSuiteTempDir } from '../testing/tmp.ts';

const root = fileURLToPath(new URL('../..', import.meta.url));
const tempDir = useSuiteTempDir();

describe('bin/routelens.mjs', () => {
  const dir = tempDir();
  const tree = join(dir, 'checkout');
  const db = join(dir, 'small.db');

  const routelens = (...args: string[]) => {
    const r = spawnSync(process.execPath, [join(tree, 'bin', 'routelens.mjs'), ...args], { encoding: 'utf8', cwd: dir, timeout: 60_000 });
    return { code: r.status, stdout: r.stdout, stderr: r.stderr };
  };
  const build = () => {
    const r = spawnSync(process.execPath, [join(root, 'scripts', 'build-cli.mjs'), '--quiet', '--outdir', join(tree, 'dist', 'cli')], { encoding: 'utf8' });
    expect(r.status, r.stderr).toBe(0);
  };
  /** node_modules with every package of this checkout but tsx: a start that needs tsx fails. */
  const packagesWithoutTsx = () => {
    rmSync(join(tree, 'node_modules'), { recursive: true, force: true });
    mkdirSync(join(tree, 'node_modules'));
    for (const name of readdirSync(join(root, 'node_modules'))) {
      if (name !== 'tsx' && name !== '.bin') symlinkSync(join(root, 'node_modules', name), join(tree, 'node_modules', name));
    }
  };

  beforeAll(() => {
    // The bin and its settings are copies (timestamps kept: the bundle records them); the sources are this checkout's.
    mkdirSync(join(tree, 'bin'), { recursive: true });
    for (const f of ['routelens.mjs', 'cliBundle.mjs']) cpSync(join(root, 'bin', f), join(tree, 'bin', f), { preserveTimestamps: true });
    for (const d of ['electron', 'shared', 'fixtures', 'models', 'scripts', 'tsconfig.json', 'package.json']) symlinkSync(join(root, d), join(tree, d));
    symlinkSync(join(root, 'node_modules'), join(tree, 'node_modules'));
    const imported = spawnSync(process.execPath, [join(root, 'bin', 'routelens.mjs'), 'import', join(root, 'fixtures', 'canonical', 'example.jsonl'), '--db', db], { encoding: 'utf8' });
    expect(imported.status, imported.stderr).toBe(0);
  });

  it('runs from source, saying so in one line, when no bundle is built', () => {
    const r = routelens('info', '--db', db, '--json');
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toBe('routelens: no built CLI in dist/cli (npm run build:cli); running from source, slower\n');
    expect(JSON.parse(r.stdout).runs.map((x: { name: string }) => x.name)).toEqual(['hle-router-demo', 'sw-router-demo']);
  });

  it('runs the fresh bundle without tsx, with the same answers', () => {
    const fromSource = routelens('info', '--db', db, '--json').stdout;
    const help = routelens('--help').stdout;
    build();
    packagesWithoutTsx();
    try {
      const r = routelens('info', '--db', db, '--json');
      expect(r.code, r.stderr).toBe(0);
      expect(r.stderr).toBe('');
      expect(r.stdout).toBe(fromSource);
      expect(routelens('--help').stdout).toBe(help);
      // A user error keeps its exit code and its one line.
      const missing = routelens('info', '--db', join(dir, 'nope.db'));
      expect(missing.code).toBe(1);
      expect(missing.stderr).toMatch(/^routelens info: .*nope\.db: no such database.*\n$/);
    } finally {
      rmSync(join(tree, 'node_modules'), { recursive: true, force: true });
      symlinkSync(join(root, 'node_modules'), join(tree, 'node_modules'));
    }
  });

  it('runs from source, saying which file is newer, when the bundle is stale', () => {
    build();
    const before = routelens('info', '--db', db, '--json');
    expect(before.stderr).toBe('');
    const later = new Date(Date.now() + 5_000);
    utimesSync(join(tree, 'bin', 'cliBundle.mjs'), later, later); // a file it was built from, changed since
    const stale = routelens('info', '--db', db, '--json');
    expect(stale.code, stale.stderr).toBe(0);
    expect(stale.stderr).toBe('routelens: the built CLI in dist/cli is older than bin/cliBundle.mjs (npm run build:cli); running from source, slower\n');
    expect(stale.stdout).toBe(before.stdout);
    // The file as it was built from: the bundle runs again.
    cpSync(join(root, 'bin', 'cliBundle.mjs'), join(tree, 'bin', 'cliBundle.mjs'), { preserveTimestamps: true });
    expect(routelens('info', '--db', db, '--json').stderr).toBe('');
  });
});

describe('freshness', () => {
  const dir = tempDir();

  it('holds a copy that kept its timestamps as fresh, though the copy lands a few nanoseconds earlier', () => {
    // cpSync / cp -p set times through seconds as a double: most sub-millisecond parts come back just below.
    const built = join(dir, 'built');
    const copied = join(dir, 'copied');
    mkdirSync(join(built, 'dist', 'cli', 'b1'), { recursive: true });
    writeFileSync(join(built, 'dist', 'cli', 'b1', 'main.mjs'), '');
    const inputs: [string, number, number][] = [];
    for (let i = 0; i < 40; i++) {
      const name = `f${i}.ts`;
      writeFileSync(join(built, name), 'x'.repeat(i));
      const t = 1_764_412_345_000 + i * 1037 + 0.4; // milliseconds that are not whole seconds, with a sub-millisecond part
      utimesSync(join(built, name), t / 1000, t / 1000);
      const s = statSync(join(built, name));
      inputs.push([name, s.size, s.mtimeMs]);
    }
    writeFileSync(join(built, 'dist', 'cli', 'current.json'), JSON.stringify({ build: 'b1', entry: 'main.mjs', inputs }));
    cpSync(built, copied, { recursive: true, preserveTimestamps: true });
    expect(freshness(copied)).toMatchObject({ fresh: true });
    utimesSync(join(copied, 'f7.ts'), new Date(Date.now()), new Date(Date.now()));
    expect(freshness(copied)).toEqual({ fresh: false, why: 'stale', path: 'f7.ts' });
  });
});
