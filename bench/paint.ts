/**
 * Time to first paint of the Runs and Episodes views on the bench database, in Chromium (the system one,
 * flags as in playwright.config.ts) against `routelens serve`. Each load is a fresh browser context (cold
 * HTTP cache). Measured in the page, from navigation start: first contentful paint (the shell), the app
 * ready (`data-app-state="ready"`), and the view's data painted — the first run row or episode row in the
 * DOM, plus one animation frame. Also the longest main-thread task during the load.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, readdirSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { chromium } from '@playwright/test';
import { freePort, startServe } from '../e2e/serveProcess.ts';
import { root } from './dataset.ts';

export const CHROMIUM = '/usr/bin/chromium';
const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
  '--disable-dev-shm-usage',
];

export interface ViewPaint {
  view: 'runs' | 'episodes';
  /** Medians over the loads, ms from navigation start. */
  firstContentfulPaintMs: number;
  appReadyMs: number;
  dataPaintedMs: number;
  longestTaskMs: number;
  loads: number;
}

function newestMtime(dir: string): number {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    newest = Math.max(newest, entry.isDirectory() ? newestMtime(path) : statSync(path).mtimeMs);
  }
  return newest;
}

/** Builds the renderer into `outDir` (the bench's own copy) when it is missing or older than its sources. */
export function ensureRenderer(outDir: string, log: (s: string) => void): void {
  const index = join(outDir, 'index.html');
  const sources = Math.max(newestMtime(join(root, 'renderer')), newestMtime(join(root, 'shared')), statSync(join(root, 'vite.config.ts')).mtimeMs);
  if (existsSync(index) && statSync(index).mtimeMs >= sources) return;
  log(`  building the renderer into ${outDir}`);
  const built = spawnSync(process.execPath, [join(root, 'node_modules', 'vite', 'bin', 'vite.js'), 'build', '--logLevel', 'warn'], {
    cwd: root,
    env: { ...process.env, ROUTELENS_RENDERER_OUT: outDir },
    encoding: 'utf8',
  });
  if (built.status !== 0) throw new Error(`vite build failed:\n${built.stderr}`);
}

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[xs.length >> 1] as number;

const SELECTORS = {
  runs: '[data-testid="run-row"]',
  episodes: '[data-testid="episode-row"]',
} as const;

/**
 * Marks, in the page, when the app is ready and when the first row matching `selector` is in the DOM (and one
 * frame later, painted); records long tasks. A string, not a function: tsx would wrap a function's inner
 * arrows in a helper (\`__name\`) that does not exist in the page.
 */
function markScript(selector: string): string {
  return `(() => {
  const selector = ${JSON.stringify(selector)};
  const marks = (window.__marks = {});
  const long = (window.__long = []);
  new PerformanceObserver((list) => { for (const e of list.getEntries()) long.push(e.duration); }).observe({ type: 'longtask', buffered: true });
  function check() {
    const root = document.getElementById('root');
    if (marks.ready === undefined && root && root.getAttribute('data-app-state') === 'ready') marks.ready = performance.now();
    if (marks.dataInDom === undefined && document.querySelector(selector)) {
      marks.dataInDom = performance.now();
      requestAnimationFrame(() => { marks.data = performance.now(); });
    }
    return marks.ready !== undefined && marks.dataInDom !== undefined;
  }
  const observer = new MutationObserver(() => { if (check()) observer.disconnect(); });
  document.addEventListener('DOMContentLoaded', () => {
    if (!check()) observer.observe(document.documentElement, { subtree: true, childList: true, attributes: true });
  });
})();`;
}

export async function benchPaint(dbPath: string, rendererDir: string, loads: number, log: (s: string) => void): Promise<ViewPaint[]> {
  process.env.ROUTELENS_RENDERER_OUT = rendererDir;
  const server = await startServe(dbPath, await freePort());
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
  try {
    const out: ViewPaint[] = [];
    for (const view of ['runs', 'episodes'] as const) {
      const samples: { fcp: number; ready: number; data: number; longest: number }[] = [];
      for (let i = 0; i < loads; i++) {
        const context = await browser.newContext({ viewport: { width: 1440, height: 900 } });
        const page = await context.newPage();
        await page.addInitScript(markScript(SELECTORS[view]));
        await page.goto(`${server.url}#/${view}`);
        await page.waitForFunction(() => (window as unknown as { __marks: Record<string, number> }).__marks.data !== undefined, undefined, { timeout: 60_000 });
        const m = await page.evaluate(() => {
          const w = window as unknown as { __marks: Record<string, number>; __long: number[] };
          const fcp = performance.getEntriesByName('first-contentful-paint')[0]?.startTime ?? Number.NaN;
          return { fcp, ready: w.__marks.ready ?? Number.NaN, data: w.__marks.data ?? Number.NaN, longest: Math.max(0, ...w.__long) };
        });
        samples.push(m);
        await context.close();
      }
      const row: ViewPaint = {
        view,
        firstContentfulPaintMs: median(samples.map((s) => s.fcp)),
        appReadyMs: median(samples.map((s) => s.ready)),
        dataPaintedMs: median(samples.map((s) => s.data)),
        longestTaskMs: median(samples.map((s) => s.longest)),
        loads,
      };
      log(
        `  ${view}: first contentful paint ${row.firstContentfulPaintMs.toFixed(0)} ms, app ready ${row.appReadyMs.toFixed(0)} ms, ` +
          `first rows painted ${row.dataPaintedMs.toFixed(0)} ms (longest task during load ${row.longestTaskMs.toFixed(0)} ms; median of ${loads})`,
      );
      out.push(row);
    }
    return out;
  } finally {
    await browser.close();
    await server.stop();
  }
}

export interface ScaleSpecResult {
  passed: boolean;
  exitCode: number;
  episodes: number;
  limitMs: number;
  steps: { step: string; longTasksMs: number[]; maxEventMs: number }[];
  /** The longest task over every step. */
  maxLongTaskMs: number;
}

/** Runs the opt-in Playwright scale spec (e2e/scale.spec.ts) on the bench database and reads its report. */
export function runScaleSpec(dbPath: string, rendererDir: string, reportPath: string, log: (s: string) => void): ScaleSpecResult {
  rmSync(reportPath, { force: true });
  const r = spawnSync(process.execPath, [join(root, 'node_modules', '@playwright', 'test', 'cli.js'), 'test', 'e2e/scale.spec.ts', '--project=chromium', '--workers=1', '--reporter=line'], {
    cwd: root,
    env: {
      ...process.env,
      ROUTELENS_E2E_SCALE: '1',
      ROUTELENS_E2E_SCALE_DB: dbPath,
      ROUTELENS_E2E_SCALE_REPORT: reportPath,
      ROUTELENS_RENDERER_OUT: rendererDir,
    },
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
  });
  const tail = `${r.stdout}\n${r.stderr}`.trim().split('\n').slice(-15).join('\n');
  log(tail.replace(/^/gm, '    '));
  if (!existsSync(reportPath)) throw new Error(`the scale spec wrote no report (exit ${r.status}):\n${tail}`);
  const report = JSON.parse(readFileSync(reportPath, 'utf8')) as Omit<ScaleSpecResult, 'passed' | 'exitCode' | 'maxLongTaskMs'>;
  return {
    ...report,
    passed: r.status === 0,
    exitCode: r.status ?? -1,
    maxLongTaskMs: Math.max(0, ...report.steps.flatMap((s) => s.longTasksMs)),
  };
}
