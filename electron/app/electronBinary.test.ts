import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { electronBinaryPath, electronBinaryProblem } from '../../scripts/electronBinary.mjs';
import { useTempDir } from '../testing/tmp.ts';

const tempDir = useTempDir();

function project(layout: { pkg?: boolean; pathTxt?: string; binary?: string }): string {
  const root = tempDir();
  const pkg = join(root, 'node_modules', 'electron');
  if (layout.pkg) {
    mkdirSync(pkg, { recursive: true });
    writeFileSync(join(pkg, 'package.json'), '{"name":"electron"}');
  }
  if (layout.pathTxt !== undefined) writeFileSync(join(pkg, 'path.txt'), layout.pathTxt);
  if (layout.binary) {
    mkdirSync(join(pkg, 'dist'), { recursive: true });
    writeFileSync(join(pkg, 'dist', layout.binary), '#!/bin/sh\n');
    chmodSync(join(pkg, 'dist', layout.binary), 0o755);
  }
  return root;
}

describe('electronBinaryPath', () => {
  it('finds the binary that path.txt names under node_modules/electron/dist', () => {
    const root = project({ pkg: true, pathTxt: 'electron', binary: 'electron' });
    expect(electronBinaryPath({ root, env: {} })).toBe(join(root, 'node_modules', 'electron', 'dist', 'electron'));
    expect(electronBinaryProblem({ root, env: {} })).toBeNull();
  });

  it('says why when the package, path.txt or the binary is missing', () => {
    const cases: [Parameters<typeof project>[0], RegExp][] = [
      [{}, /not installed/],
      [{ pkg: true }, /path\.txt is missing/],
      [{ pkg: true, pathTxt: 'electron' }, /missing from node_modules\/electron\/dist/],
    ];
    for (const [layout, why] of cases) {
      const root = project(layout);
      expect(electronBinaryPath({ root, env: {} })).toBeNull();
      expect(electronBinaryProblem({ root, env: {} })).toMatch(why);
    }
  });

  it('honours ELECTRON_OVERRIDE_DIST_PATH as the electron package does', () => {
    const root = project({ pkg: true, pathTxt: 'electron' });
    const dist = tempDir();
    writeFileSync(join(dist, 'electron'), '');
    expect(electronBinaryPath({ root, env: { ELECTRON_OVERRIDE_DIST_PATH: dist } })).toBe(join(dist, 'electron'));
    expect(electronBinaryPath({ root, env: { ELECTRON_OVERRIDE_DIST_PATH: tempDir() } })).toBeNull();
  });

  it('agrees with itself on this checkout', () => {
    expect(electronBinaryPath() === null).toBe(electronBinaryProblem() !== null);
  });
});
