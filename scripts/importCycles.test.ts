import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { findImportCycles, formatCycle, readImportGraph } from './importCycles.ts';

const root = mkdtempSync(join(tmpdir(), 'routelens-import-cycles-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

function project(name: string, files: Record<string, string>): string {
  const dir = join(root, name);
  for (const [path, source] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), source);
  }
  return dir;
}

const cyclic = project('cyclic', {
  // a → b → c → a, through an explicit extension, a bare specifier and a type-only re-export.
  'electron/a.ts': "import { b } from './b.ts';\nexport const a = b + 1;\nexport type A = number;\n",
  'electron/b.ts': "import { c } from './sub/c';\nexport const b = c;\n",
  'electron/sub/c.ts': "export type { A } from '../a.ts';\nexport const c = 2;\n",
  // A folder's index imported by its name, which imports back: renderer/view.tsx → renderer/parts/index.ts.
  'renderer/view.tsx': "import { part } from './parts';\nexport const View = () => part;\n",
  'renderer/parts/index.ts': "import type { View } from '../view.tsx';\nexport const part = 1;\nexport type V = typeof View;\n",
  // A module importing itself.
  'shared/self.ts': "import { self } from './self.ts';\nexport { self };\n",
  // Not edges: a dynamic import, a test file, a package, an import written in a string or comment.
  'shared/lazy.ts': "import { used } from './user.ts';\nexport const load = () => import('./user.ts');\nvoid used;\n",
  'shared/user.ts': "export const used = () => import('./lazy.ts');\n",
  'shared/user.test.ts': "import { used } from './user.ts';\nimport { load } from './lazy.ts';\nvoid used; void load;\n",
  'shared/text.ts': "import { z } from 'zod';\nconst s = \"import x from './lazy.ts'\";\n// import { used } from './user.ts'\nexport { z, s };\n",
  'shared/lazy2.ts': "/* import { t } from './text.ts' */\nexport { s } from './text.ts';\n",
});

const acyclic = project('acyclic', {
  'electron/a.ts': "import { b } from './b.ts';\nimport type { T } from '../shared/types';\nexport const a: T = b;\n",
  'electron/b.ts': "export const b = 1;\nexport const later = () => import('./a.ts');\n",
  'shared/types.ts': 'export type T = number;\n',
});

const dirs = ['electron', 'shared', 'renderer'];

describe('import cycle finder', () => {
  it('finds every circle through static imports, type-only ones and index files included', () => {
    const cycles = findImportCycles(readImportGraph(cyclic, dirs)).map(formatCycle);
    expect(cycles).toEqual([
      'electron/a.ts → electron/b.ts → electron/sub/c.ts → electron/a.ts',
      'renderer/parts/index.ts → renderer/view.tsx → renderer/parts/index.ts',
      'shared/self.ts → shared/self.ts',
    ]);
  });

  it('leaves out dynamic imports, test files, packages and text that only looks like an import', () => {
    const graph = readImportGraph(cyclic, dirs);
    expect(graph.has('shared/user.test.ts')).toBe(false);
    expect(graph.get('shared/lazy.ts')).toEqual(['shared/user.ts']);
    expect(graph.get('shared/user.ts')).toEqual([]);
    expect(graph.get('shared/text.ts')).toEqual([]);
    expect(graph.get('shared/lazy2.ts')).toEqual(['shared/text.ts']);
    expect(findImportCycles(readImportGraph(acyclic, dirs))).toEqual([]);
  });

  it('covers every module of a tangle, not one circle of it', () => {
    // x ↔ y and y ↔ z share y: one component, two circles needed to show z.
    const graph = new Map([
      ['x.ts', ['y.ts']],
      ['y.ts', ['x.ts', 'z.ts']],
      ['z.ts', ['y.ts']],
    ]);
    expect(findImportCycles(graph).map(formatCycle)).toEqual(['x.ts → y.ts → x.ts', 'z.ts → y.ts → z.ts']);
  });

  it('exits 1 and prints the circles when there are any, 0 when there are none', () => {
    const script = fileURLToPath(new URL('./check-import-cycles.ts', import.meta.url));
    const run = (dir: string) => {
      try {
        return { code: 0, out: execFileSync(process.execPath, ['--import', 'tsx', script, dir], { encoding: 'utf8' }) };
      } catch (error) {
        const failed = error as { status: number; stdout: string };
        return { code: failed.status, out: failed.stdout };
      }
    };
    const bad = run(cyclic);
    expect(bad.code).toBe(1);
    expect(bad.out).toContain('electron/a.ts → electron/b.ts → electron/sub/c.ts → electron/a.ts');
    expect(bad.out).toContain('import cycles: 3 ');
    const good = run(acyclic);
    expect(good.code).toBe(0);
    expect(good.out).toContain('import cycles: 0 ');
  });
});
