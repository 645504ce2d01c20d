/** Lays out figures off the main thread (see figureLayout.ts for when): one job in, one Scene or error out. */
import { layoutFigure, type LayoutJob } from './figureLayout.ts';

export interface LayoutRequest extends LayoutJob {
  seq: number;
}

export type LayoutReply = { seq: number; scene: ReturnType<typeof layoutFigure>; ms: number } | { seq: number; error: string };

addEventListener('message', (e: MessageEvent<LayoutRequest>) => {
  const { seq, ...job } = e.data;
  const started = performance.now();
  let reply: LayoutReply;
  try {
    reply = { seq, scene: layoutFigure(job), ms: performance.now() - started };
  } catch (err) {
    reply = { seq, error: err instanceof Error ? err.message : String(err) };
  }
  postMessage(reply);
});
