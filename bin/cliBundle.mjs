// Whether the built CLI (scripts/build-cli.mjs) may run: dist/cli/current.json names the build and every file it was
// built from with its size and mtime; any of them changed or gone means the bundle is stale. One small read and one
// stat per input (a few hundred): about a millisecond, so every start can afford it.
import { existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';

/**
 * @returns {{ fresh: true, build: string, entry: string } | { fresh: false, why: 'missing' } | { fresh: false, why: 'stale', path: string }}
 *   entry: the bundle's entry file, absolute.
 */
export function freshness(root, outRoot = join(root, 'dist', 'cli')) {
  let current, entry;
  try {
    current = JSON.parse(readFileSync(join(outRoot, 'current.json'), 'utf8'));
    entry = join(outRoot, current.build, current.entry);
    if (!existsSync(entry) || !Array.isArray(current.inputs)) return { fresh: false, why: 'missing' };
  } catch {
    return { fresh: false, why: 'missing' };
  }
  for (const [path, size, mtimeMs] of current.inputs) {
    const s = statSync(join(root, path), { throwIfNoEntry: false });
    // Within a millisecond: a copy that keeps timestamps (cp -p, cpSync) sets them through seconds as a double, which
    // can land a few nanoseconds below the original and so in the millisecond before it.
    if (!s || s.size !== size || Math.abs(s.mtimeMs - mtimeMs) >= 1) return { fresh: false, why: 'stale', path };
  }
  return { fresh: true, build: current.build, entry };
}
