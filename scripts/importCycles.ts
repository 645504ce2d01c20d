/**
 * The import graph of the project's TypeScript modules and the circles in it.
 *
 * An edge is a static `import ... from` / `export ... from` / `import x = require()` with a relative specifier,
 * type-only ones included (a circle of types still ties two modules' meaning together). Dynamic `import()` is not
 * an edge: it is how a module deliberately loads another later. Package imports and non-TypeScript targets
 * (.json, .css, .mjs) are left out; test files neither count as importers nor as targets.
 *
 * Circles are found per strongly connected component (Tarjan), and each component is printed as shortest cycles
 * through its members until every member is on one, so a component of twenty modules is not drowned in the
 * thousands of elementary cycles it may hold.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, relative, resolve, sep } from 'node:path';

// Required, not imported: an ESM import of the 9 MB CommonJS build runs Node's export scan over it (2.3 s against
// 0.8 s here), which alone would take the check past its 3 s budget.
const ts = createRequire(import.meta.url)('typescript') as typeof import('typescript');

const SOURCE = /\.(ts|tsx|mts|cts)$/;
const TEST = /\.test\.(ts|tsx|mts|cts)$/;
const RESOLVE_SUFFIXES = ['', '.ts', '.tsx', '.mts', '.cts', '/index.ts', '/index.tsx'];

export type ImportGraph = Map<string, string[]>;

function isModule(path: string): boolean {
  return SOURCE.test(path) && !TEST.test(path) && !path.endsWith('.d.ts') && !path.endsWith('.d.mts');
}

function listModules(dir: string, into: string[]): void {
  if (!existsSync(dir)) return;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (entry.name === 'node_modules' || entry.name.startsWith('.')) continue;
    const path = join(dir, entry.name);
    if (entry.isDirectory()) listModules(path, into);
    else if (entry.isFile() && isModule(path)) into.push(path);
  }
}

/**
 * The relative specifiers a module imports statically (type-only included). TypeScript's pre-processor reads
 * them from the token stream, skipping strings and comments, at about a tenth of the cost of a full parse
 * (160 ms against 1.4 s for the whole app); it also reports `import('./x')`, which is told apart by the
 * `import(` written before the specifier.
 */
export function staticSpecifiers(source: string): string[] {
  const specifiers: string[] = [];
  for (const { fileName, pos } of ts.preProcessFile(source, true, false).importedFiles) {
    if (!fileName.startsWith('.')) continue;
    if (/\bimport\s*\(\s*$/.test(source.slice(Math.max(0, pos - 40), pos))) continue;
    specifiers.push(fileName);
  }
  return specifiers;
}

function resolveSpecifier(fromFile: string, specifier: string): string | undefined {
  const base = resolve(dirname(fromFile), specifier);
  // `./x.js` written for a `./x.ts` module, as TypeScript allows.
  const candidates = RESOLVE_SUFFIXES.map((suffix) => base + suffix);
  const js = /\.(m|c)?js$/.exec(base);
  if (js) candidates.push(base.slice(0, -js[0].length) + `.${js[1] ?? ''}ts`, base.slice(0, -js[0].length) + '.tsx');
  for (const candidate of candidates) {
    if (existsSync(candidate) && statSync(candidate).isFile()) return candidate;
  }
  return undefined;
}

/** Graph of modules under `dirs` (relative to `root`), keyed by paths relative to `root` with `/` separators. */
export function readImportGraph(root: string, dirs: readonly string[]): ImportGraph {
  const files: string[] = [];
  for (const dir of dirs) listModules(join(root, dir), files);
  const name = (path: string): string => relative(root, path).split(sep).join('/');
  const graph: ImportGraph = new Map();
  for (const file of files) {
    const targets = new Set<string>();
    for (const specifier of staticSpecifiers(readFileSync(file, 'utf8'))) {
      const target = resolveSpecifier(file, specifier);
      if (target && isModule(target)) targets.add(name(target));
    }
    graph.set(name(file), [...targets].sort());
  }
  return graph;
}

/** Strongly connected components (Tarjan, iterative) that hold a cycle: two or more modules, or one importing itself. */
export function cyclicComponents(graph: ImportGraph): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const onStack = new Set<string>();
  const stack: string[] = [];
  const components: string[][] = [];
  let counter = 0;
  const edges = (node: string): string[] => graph.get(node) ?? [];
  for (const start of [...graph.keys()].sort()) {
    if (index.has(start)) continue;
    const work: { node: string; next: number }[] = [{ node: start, next: 0 }];
    index.set(start, counter);
    low.set(start, counter++);
    stack.push(start);
    onStack.add(start);
    while (work.length > 0) {
      const frame = work[work.length - 1]!;
      const targets = edges(frame.node);
      if (frame.next < targets.length) {
        const target = targets[frame.next++]!;
        if (!index.has(target)) {
          index.set(target, counter);
          low.set(target, counter++);
          stack.push(target);
          onStack.add(target);
          work.push({ node: target, next: 0 });
        } else if (onStack.has(target)) {
          low.set(frame.node, Math.min(low.get(frame.node)!, index.get(target)!));
        }
        continue;
      }
      work.pop();
      const parent = work[work.length - 1];
      if (parent) low.set(parent.node, Math.min(low.get(parent.node)!, low.get(frame.node)!));
      if (low.get(frame.node) === index.get(frame.node)) {
        const component: string[] = [];
        let member: string;
        do {
          member = stack.pop()!;
          onStack.delete(member);
          component.push(member);
        } while (member !== frame.node);
        if (component.length > 1 || edges(frame.node).includes(frame.node)) components.push(component.sort());
      }
    }
  }
  return components.sort((a, b) => a[0]!.localeCompare(b[0]!));
}

/** Shortest cycle from `start` back to itself using only modules in `within` (breadth-first). */
function shortestCycle(graph: ImportGraph, start: string, within: Set<string>): string[] {
  const previous = new Map<string, string>();
  const queue = [start];
  for (let head = 0; head < queue.length; head++) {
    const node = queue[head]!;
    for (const target of graph.get(node) ?? []) {
      if (!within.has(target)) continue;
      if (target === start) {
        const back = [node];
        while (back[back.length - 1] !== start) back.push(previous.get(back[back.length - 1]!)!);
        return [...back.reverse(), start];
      }
      if (!previous.has(target) && target !== start) {
        previous.set(target, node);
        queue.push(target);
      }
    }
  }
  return [];
}

/** Cycles that together pass through every module of every cyclic component, each as `[a, b, ..., a]`. */
export function findImportCycles(graph: ImportGraph): string[][] {
  const cycles: string[][] = [];
  for (const component of cyclicComponents(graph)) {
    const within = new Set(component);
    const covered = new Set<string>();
    for (const member of component) {
      if (covered.has(member)) continue;
      const cycle = shortestCycle(graph, member, within);
      for (const node of cycle) covered.add(node);
      cycles.push(cycle);
    }
  }
  return cycles;
}

export function formatCycle(cycle: readonly string[]): string {
  return cycle.join(' → ');
}
