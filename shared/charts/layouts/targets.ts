/**
 * `targets` (DESIGN §5): for one episode, the AEC target S̃_t by turn (line and points; turns with an error
 * in the error colour) above the per-turn penalty as bars on the same turn axis. Each point opens its turn.
 */
import { line, max, min, scaleBand, scaleLinear } from 'd3';
import type { TargetsResult } from '../../analysisResults.ts';
import { bottomAxis, bottomAxisHeight, leftAxis, leftAxisWidth, legend, panelTitle } from '../axes.ts';
import type { FigureContext } from '../context.ts';
import type { Mark, Scene } from '../scene.ts';
import { emptyNote, scene } from './common.ts';

export function targetsLayout(result: TargetsResult, ctx: FigureContext): Scene {
  const { theme, width } = ctx;
  const fs = theme.fontSize;
  const marks: Mark[] = [];
  const title = `Targets and error penalties by turn, episode ${result.episode}`;
  const leg = legend(
    [{ label: 'target (final score less the penalties of errors from that turn on)', color: theme.text, shape: 'line' }, { label: 'turn with an error', color: theme.status.failed, shape: 'circle' }, { label: 'error penalty', color: theme.status.failed }],
    12, 8, width - 24, theme,
  );
  marks.push(...leg.marks);
  const top = 8 + leg.height + 10;
  if (result.turns.length === 0) {
    marks.push(emptyNote(ctx, width / 2, top + 40, 'This episode has no turns.'));
    return scene(ctx, top + 90, title, marks);
  }
  const known = result.turns.filter((t) => t.s_tilde !== null) as (TargetsResult['turns'][number] & { s_tilde: number })[];
  const lo = Math.min(0, min(known, (t) => t.s_tilde) ?? 0);
  const hi = Math.max(1, max(known, (t) => t.s_tilde) ?? 1);
  const topH = 230;
  const botH = 150;
  const y = scaleLinear().domain([lo, hi]).nice().range([top + fs + 10 + topH - 20, top + fs + 10]);
  const maxPen = max(result.turns, (t) => t.penalty) ?? 0;
  const pTop = top + fs + 10 + topH + fs + 10;
  const yp = scaleLinear().domain([0, maxPen || 0.01]).nice().range([pTop, pTop + botH - bottomAxisHeight({ theme, label: 'x' }) - 10]);
  const yOpts = { theme, label: 'target', format: (v: number) => v.toFixed(2), ticks: 5 };
  const pOpts = { theme, label: 'error penalty', format: (v: number) => v.toFixed(3), ticks: 3 };
  const left = 12 + Math.max(leftAxisWidth(y, yOpts), leftAxisWidth(yp, pOpts));
  const x = scaleBand<string>().domain(result.turns.map((t) => String(t.t))).range([left, width - 16]).paddingInner(0.2);
  const cx = (t: number): number => (x(String(t)) as number) + x.bandwidth() / 2;
  marks.push(panelTitle(`Target by turn · episode ${result.episode}${result.run ? ` (run ${result.run})` : ''}`, left, top, width - 16 - left, theme));
  marks.push(...leftAxis(y, left, { ...yOpts, grid: width - 16 - left }));
  const d = line<(typeof known)[number]>().x((t) => cx(t.t)).y((t) => y(t.s_tilde))(known);
  if (d) marks.push({ type: 'path', d, stroke: theme.text, strokeWidth: 1.8, role: 'curve' });
  const every = Math.max(1, Math.ceil(result.turns.length / Math.max(2, Math.floor((width - left) / 28))));
  for (const t of result.turns) {
    const link = { kind: 'episode-ref' as const, ext_id: result.episode, run: result.run, turn: t.t };
    const lines = [`turn ${t.t}`, `target ${t.s_tilde === null ? 'n/a (no outcome)' : t.s_tilde.toFixed(4)}`, `error penalty ${t.penalty.toFixed(4)}`, t.errors.length ? `errors: ${t.errors.join(', ')}` : 'no error'];
    if (t.s_tilde !== null) {
      marks.push({ type: 'circle', cx: cx(t.t), cy: y(t.s_tilde), r: t.errors.length ? 4 : 3, fill: t.errors.length ? theme.status.failed : theme.text, stroke: theme.outline, strokeWidth: 1, role: 'point', datum: { lines, link } });
    }
    if (t.penalty > 0) {
      marks.push({ type: 'rect', x: x(String(t.t)) as number, y: pTop, width: x.bandwidth(), height: yp(t.penalty) - pTop, fill: theme.status.failed, role: 'bar', datum: { lines, link } });
    }
  }
  marks.push(panelTitle('error penalty by turn (hangs down)', left, pTop - fs - 8, width - 16 - left, theme));
  marks.push(...leftAxis(yp, left, pOpts));
  const axisY = yp.range()[1] as number;
  const xAxis = bottomAxis(x, axisY + 4, { theme, label: 'turn index t' });
  marks.push(...xAxis.filter((m) => !(m.type === 'text' && m.role === 'tick-label' && Number(m.text) % every !== 0)));
  return scene(ctx, axisY + bottomAxisHeight({ theme, label: 'x' }) + 12, title, marks);
}
