// Issue 35 item 8, the analysis figures' rough edges: what each layout must draw so that nothing touches the
// plot's frame and every share says how many it rests on.
import { describe, expect, it } from 'vitest';
import type { ErrorRecoveryResult } from '../../analysisResults.ts';
import type { FigureContext } from '../context.ts';
import type { LineMark, Mark, RectMark, Scene } from '../scene.ts';
import { LIGHT_THEME } from '../theme.ts';
import { errorRecoveryLayout } from './errorRecovery.ts';

const ctx: FigureContext = { theme: LIGHT_THEME, width: 900, modelColor: () => '#0072B2' };
const flat = (marks: Mark[]): Mark[] => marks.flatMap((m) => (m.type === 'group' ? flat(m.marks) : [m]));
const byRole = (s: Scene, role: string) => flat(s.marks).filter((m) => m.role === role);
/** The vertical axis line's top end. */
const axisTop = (s: Scene) => Math.min(...(byRole(s, 'axis') as LineMark[]).filter((a) => a.x1 === a.x2).map((a) => Math.min(a.y1, a.y2)));

describe('error-recovery headroom', () => {
  // Two runs that always switched after an error: bars at exactly 100% with intervals reaching 100%.
  const group = (run: string) => ({
    run, n: 57, p_switch: 1, p_recover: 0.7, p_recover_stay: null, p_recover_switch: 0.7, n_stay: 0, n_switch: 57,
    ci: { p_switch: [0.937, 1], p_recover: [0.57, 0.8], p_recover_stay: [0, 1], p_recover_switch: [0.57, 0.8] },
  }) as ErrorRecoveryResult['groups'][number];
  const scene = errorRecoveryLayout({ groups: [group('always-a'), group('always-b')] }, ctx);

  it('leaves room above a bar at 100% and its interval', () => {
    const top = axisTop(scene);
    const full = (byRole(scene, 'bar') as RectMark[]).filter((b) => b.datum?.lines[1]?.includes('= 100.0%'));
    expect(full).toHaveLength(2);
    for (const b of full) expect(b.y - top).toBeGreaterThanOrEqual(8);
    const whiskers = byRole(scene, 'ci') as LineMark[];
    expect(Math.min(...whiskers.map((w) => Math.min(w.y1, w.y2))) - top).toBeGreaterThanOrEqual(8);
  });

  it('labels its axis up to 100%, not past it', () => {
    const labels = byRole(scene, 'tick-label').map((m) => (m as { text: string }).text);
    expect(labels).toContain('100%');
    expect(labels.filter((t) => /^\d+%$/.test(t) && Number(t.slice(0, -1)) > 100)).toEqual([]);
  });
});
