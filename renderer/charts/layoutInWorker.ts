/** The main thread's side of layout.worker.ts: one worker, started on first use, answering jobs by number. */
import type { Scene } from '../../shared/charts/scene.ts';
import { layoutFigure, type LayoutJob } from './figureLayout.ts';
import type { LayoutReply, LayoutRequest } from './layout.worker.ts';

let worker: Worker | null | undefined;
let seq = 0;
const pending = new Map<number, { job: LayoutJob; resolve(scene: Scene): void; reject(err: Error): void }>();

function theWorker(): Worker | null {
  if (worker !== undefined) return worker;
  try {
    worker = new Worker(new URL('./layout.worker.ts', import.meta.url), { type: 'module' });
    worker.addEventListener('message', (e: MessageEvent<LayoutReply>) => {
      const job = pending.get(e.data.seq);
      if (!job) return;
      pending.delete(e.data.seq);
      if ('error' in e.data) job.reject(new Error(e.data.error));
      else job.resolve(e.data.scene);
    });
    worker.addEventListener('error', (e) => {
      // A worker that cannot start (a host that refuses it) or crashed: its jobs, and later ones, run here.
      e.preventDefault();
      worker?.terminate();
      worker = null;
      const jobs = [...pending.values()];
      pending.clear();
      for (const p of jobs) {
        try {
          p.resolve(layoutFigure(p.job));
        } catch (err) {
          p.reject(err instanceof Error ? err : new Error(String(err)));
        }
      }
    });
  } catch {
    worker = null;
  }
  return worker;
}

export function layoutInWorker(job: LayoutJob): Promise<Scene> {
  const w = theWorker();
  if (!w) return Promise.resolve().then(() => layoutFigure(job));
  const id = ++seq;
  return new Promise<Scene>((resolve, reject) => {
    pending.set(id, { job, resolve, reject });
    const request: LayoutRequest = { seq: id, ...job };
    w.postMessage(request);
  });
}
