// Issue 38 item 3, "long queries are interruptible": `routelens serve` stops on SIGTERM or Ctrl-C while its
// analysis worker is inside a long native call. The worker here draws two large PNGs (49 megapixels each,
// under the limit, ~8 s apiece on a quiet machine); Node keeps the process alive until such a call returns, so
// before the fix serve exited only when both were drawn. (A received database's own endless views no longer
// run at all: receivedDatabase.attack.test.ts.)
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { spawnServe } from '../testing/serveChild.ts';
import { useSuiteTempDir } from '../testing/tmp.ts';
import { STOP_GRACE_MS } from './serve.ts';

const root = fileURLToPath(new URL('../../', import.meta.url));
const bin = join(root, 'bin/routelens.mjs');
const tempDir = useSuiteTempDir();
// `npm test` sends SIGTERM; `npm run test:attack` (ROUTELENS_ATTACK=full) Ctrl-C's SIGINT too.
const SIGNALS = process.env.ROUTELENS_ATTACK === 'full' ? (['SIGTERM', 'SIGINT'] as const) : (['SIGTERM'] as const);

let dbPath: string;
beforeAll(() => {
  dbPath = join(tempDir(), 'serve.db');
  const r = spawnSync(process.execPath, [bin, 'import', join(root, 'fixtures/canonical/example.jsonl'), '--db', dbPath], { encoding: 'utf8', cwd: root });
  expect(r.status, r.stderr).toBe(0);
}, 120_000);

describe('serve stops on a signal while its worker is busy', () => {
  for (const signal of SIGNALS) {
    it(`${signal}: the process ends within the grace period, not when the drawing ends`, async () => {
      const served = spawnServe(bin, root, dbPath);
      const child = served.child;
      const exited = new Promise<number>((resolve) => child.on('exit', () => resolve(Date.now())));
      const url = await served.url;
      const token = url.searchParams.get('token') ?? '';
      const draw = (): void => {
        void fetch(new URL('/api/exportFigure', url), {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'x-routelens-token': token },
          body: JSON.stringify({ request: { id: 'pareto' }, format: 'png', width: 4000, height: 4000, scale: 1.75 }),
        }).catch(() => undefined);
      };
      draw();
      draw();
      await new Promise((r) => setTimeout(r, 1500)); // the worker has started and is drawing
      const signalled = Date.now();
      child.kill(signal);
      const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
      const took = (await exited) - signalled;
      clearTimeout(timer);
      console.log(`attack: serve stopped ${took} ms after ${signal} with its worker drawing two 49-megapixel PNGs`);
      expect(took).toBeLessThan(STOP_GRACE_MS + 3000);
    }, 120_000);
  }
});
