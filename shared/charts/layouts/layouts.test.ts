// Layouts on small hand-worked results: positions, colours and tooltip lines checked exactly.
import { describe, expect, it } from 'vitest';
import type { AnalysisResponse, LiftResult, ParetoResult } from '../../analysisResults.ts';
import type { FigureContext } from '../context.ts';
import { FIGURES, figureCsv, figureScene } from '../figures.ts';
import type { Mark, RectMark, Scene } from '../scene.ts';
import { textWidth } from '../text.ts';
import { runColors } from '../palette.ts';
import { DARK_THEME, LIGHT_THEME } from '../theme.ts';
import { liftColorT, liftLayout } from './lift.ts';
import { paretoLayout } from './pareto.ts';

const colors: Record<string, string> = { 'gpt-5': '#0072B2', 'kimi-k2': '#E69F00' };
const ctx: FigureContext = { theme: LIGHT_THEME, width: 600, modelColor: (m) => colors[m] ?? '#888888' };

function flat(marks: Mark[]): Mark[] {
  return marks.flatMap((m) => (m.type === 'group' ? flat(m.marks) : [m]));
}
const byRole = (s: Scene, role: string) => flat(s.marks).filter((m) => m.role === role);

describe('lift heatmap', () => {
  // Two models × two tools; gpt-5 over-uses python (lift 1.2), kimi-k2 over-uses search (16/9).
  const result: LiftResult = {
    cells: [
      { model: 'gpt-5', category: 'python', lift: 1.2, ci: [1.05, 1.37], n: 30 },
      { model: 'gpt-5', category: 'search', lift: 0.5, ci: [0.3, 0.7], n: 10 },
      { model: 'kimi-k2', category: 'python', lift: 0.8, ci: [0.6, 0.95], n: 20 },
      { model: 'kimi-k2', category: 'search', lift: 16 / 9, ci: [1.4, 2.1], n: 40 },
    ],
  };
  const scene = liftLayout(result, ctx);
  const cells = byRole(scene, 'cell') as RectMark[];

  it('puts four cells on a grid: models as rows (by name), tools as columns (most turns first)', () => {
    expect(cells).toHaveLength(4);
    // python has 50 turns, search 50: tie → by name, python first.
    const at = (model: string, tool: string) => cells.find((c) => c.datum?.lines[0] === `${model} · ${tool}`) as RectMark;
    const gp = at('gpt-5', 'python');
    const gs = at('gpt-5', 'search');
    const kp = at('kimi-k2', 'python');
    const ks = at('kimi-k2', 'search');
    expect(gp.x).toBe(kp.x);
    expect(gs.x).toBe(ks.x);
    expect(gs.x).toBeGreaterThan(gp.x);
    expect(gp.y).toBe(gs.y);
    expect(kp.y).toBeGreaterThan(gp.y);
    expect(gp.width).toBe(gs.width);
    // Cells fill the plot: left edge after the row labels, right edge 12 px from the figure's.
    const labelW = textWidth('kimi-k2', LIGHT_THEME.fontSize) + 4;
    expect(gp.x).toBeCloseTo(12 + 14 + labelW + 6, 6);
    expect(gs.x + gs.width).toBeCloseTo(600 - 12, 6);
  });

  it('colours by log2 lift around 1: neutral at 1, orange above, blue below', () => {
    expect(liftColorT(1)).toBe(0.5);
    expect(liftColorT(2)).toBe(0.75);
    expect(liftColorT(0.5)).toBe(0.25);
    expect(liftColorT(100)).toBe(1);
    const fill = (tool: string, model: string) => cells.find((c) => c.datum?.lines[0] === `${model} · ${tool}`)?.fill;
    expect(fill('python', 'gpt-5')).toBe(LIGHT_THEME.diverging(liftColorT(1.2)));
    expect(fill('search', 'gpt-5')).toBe(LIGHT_THEME.diverging(0.25));
    expect(LIGHT_THEME.diverging(0.5)).toBe('rgb(247, 247, 247)');
  });

  it('gives exact values, interval and n on hover, and links to the episodes', () => {
    const cell = cells.find((c) => c.datum?.lines[0] === 'kimi-k2 · search');
    expect(cell?.datum).toEqual({
      lines: ['kimi-k2 · search', 'lift 1.78× (95% CI 1.4–2.1)', 'n = 40 turns'],
      link: { kind: 'episodes', models: ['kimi-k2'], runs: undefined, label: 'kimi-k2 on search turns' },
    });
    expect(byRole(scene, 'cell-value').map((m) => (m.type === 'text' ? m.text : ''))).toEqual(['1.20', '0.50', '0.80', '1.78']);
  });

  it('draws one heatmap per run when runs are compared, with the same rows and columns', () => {
    const twoRuns = liftLayout({ ...result, by_run: [{ run: 'a', cells: result.cells }, { run: 'b', cells: result.cells.slice(0, 1) }] }, ctx);
    expect(byRole(twoRuns, 'panel-title').map((m) => (m.type === 'text' ? m.text : ''))).toEqual(['run: a', 'run: b']);
    expect(byRole(twoRuns, 'cell')).toHaveLength(5);
    expect(byRole(twoRuns, 'cell-hidden')).toHaveLength(3);
  });
});

describe('pareto scatter', () => {
  const result: ParetoResult = {
    reference: 'b',
    points: [
      { run: 'a', n: 3, mean_score: 2 / 3, mean_cost: 0.85 / 3, frontier: true, savings_vs_reference: 1 - 0.85 / 3, score_delta_vs_reference: -1 / 3 },
      { run: 'c', n: 1, mean_score: 0, mean_cost: 0.5, frontier: false, savings_vs_reference: 0.5, score_delta_vs_reference: -1 },
      { run: 'b', n: 2, mean_score: 1, mean_cost: 1, frontier: true, savings_vs_reference: 0, score_delta_vs_reference: 0 },
    ],
  };
  const scene = paretoLayout(result, { ...ctx, theme: DARK_THEME });
  const points = byRole(scene, 'point');

  it('places runs by cost (x) and score (y), each in its own run colour, with a staircase frontier', () => {
    const p = Object.fromEntries(points.map((m) => [m.datum?.lines[0]?.split(' ')[1], m])) as Record<string, Mark & { cx: number; cy: number; fill: string }>;
    expect(p.a!.cx).toBeLessThan(p.c!.cx);
    expect(p.c!.cx).toBeLessThan(p.b!.cx);
    expect(p.b!.cy).toBeLessThan(p.a!.cy);
    expect(p.a!.cy).toBeLessThan(p.c!.cy);
    const color = runColors(['a', 'b', 'c']);
    expect([p.a!.fill, p.b!.fill, p.c!.fill]).toEqual([color('a'), color('b'), color('c')]);
    const frontier = byRole(scene, 'frontier')[0];
    expect(frontier?.type === 'path' && frontier.d).toBe(`M${p.a!.cx},${p.a!.cy}H${p.b!.cx}V${p.b!.cy}`);
    expect(byRole(scene, 'reference-ring')).toHaveLength(1);
  });

  it('says the savings against the reference in the tooltip', () => {
    const a = points.find((m) => m.datum?.lines[0] === 'run a');
    expect(a?.datum?.lines).toEqual([
      'run a',
      'mean score 0.667 (normalised 0–1)',
      'mean cost $0.283 per episode',
      'n = 3 episodes with an outcome',
      'on the frontier',
      'vs b: 71.7% cheaper, score -0.333',
    ]);
    expect(a?.datum?.link).toEqual({ kind: 'episodes', runs: ['a'], label: 'episodes of a' });
  });
});

describe('every figure', () => {
  // A minimal result per analysis; each layout must fit its width, keep data marks explained, and give CSV.
  const responses: AnalysisResponse[] = [
    { request: { id: 'pareto' }, result: { reference: null, points: [] } },
    { request: { id: 'switch-cost' }, result: { runs: [{ run: 'r', episodes: [{ episode: 'e1', switches: 2, cost: 0.5, turns: 4 }], mean_cumulative_cost: [{ t: 0, mean: 0.1, n: 1 }, { t: 1, mean: 0.5, n: 1 }] }] } },
    { request: { id: 'error-recovery' }, result: { groups: [{ run: 'r', n: 4, p_switch: 0.5, p_recover: 0.75, p_recover_stay: 1, p_recover_switch: 0.5, n_stay: 2, n_switch: 2, ci: { p_switch: [0.15, 0.85], p_recover: [0.3, 0.95], p_recover_stay: [0.34, 1], p_recover_switch: [0.09, 0.9] } }] } },
    { request: { id: 'usage-by-turn' }, result: { runs: [{ run: 'r', turns: [{ t: 0, n: 4, shares: { 'gpt-5': 0.75, 'kimi-k2': 0.25 } }] }] } },
    { request: { id: 'lift' }, result: { cells: [] } },
    { request: { id: 'plan-dag', episode: 'e1' }, result: { episode: 'e1', mode: 'decomp_repair', run: 'r', rounds: [{ round: 1, turn: 0, nodes: [{ id: 's1', model: 'gpt-5', primitive: 'reason', status: 'ok' }, { id: 's2', model: 'kimi-k2', primitive: 'web_search', status: 'failed' }], edges: [['s1', 's2']] }] } },
    { request: { id: 'budget-modes' }, result: { modes: [{ mode: 'low', n: 2, mean_score: 0.5, mean_cost: 0.01, expert_call_ratio: 0.5, ci: { mean_score: null, mean_cost: null, expert_call_ratio: [0.09, 0.91] }, by_train_step: [] }] } },
    { request: { id: 'usage-ratio' }, result: { runs: [{ run: 'r', calls: 4, usage: [{ model: 'gpt-5', calls: 3, ratio: 0.75, rho: 0.5, over_target: true }], accuracy_by_max_turns: [{ max_turns: 3, n: 2, accuracy: 0.5 }], exhausted_turn_budget: 0.5 }] } },
    { request: { id: 'confusion' }, result: { routing: [{ difficulty: 1, n: 4, shares: { 'gpt-5': 1 } }], verification: { stop_correct: 1, stop_incorrect: 0, continue_correct: 0, continue_incorrect: 1 } } },
    { request: { id: 'targets', episode: 'e1' }, result: { episode: 'e1', run: 'r', turns: [{ t: 0, s_tilde: 0.9, penalty: 0.1, errors: ['python_traceback'] }, { t: 1, s_tilde: 1, penalty: 0, errors: [] }] } },

    { request: { id: 'calibration' }, result: { estimator: { id: 1, name: 'est' }, note: null, overall: { n: 4, mae: 0.1, spearman: 0.8, bins: [{ lo: 0, hi: 0.5, n: 2, mean_s_hat: 0.3, mean_s_tilde: 0.35, ci: [0.2, 0.5] }, { lo: 0.5, hi: 1, n: 2, mean_s_hat: 0.7, mean_s_tilde: 0.6, ci: [0.5, 0.7] }] }, runs: [{ run: 'r', n: 4, mae: 0.1, spearman: 0.8, bins: [{ lo: 0, hi: 0.5, n: 2, mean_s_hat: 0.3, mean_s_tilde: 0.35, ci: [0.2, 0.5] }, { lo: 0.5, hi: 1, n: 2, mean_s_hat: 0.7, mean_s_tilde: 0.6, ci: [0.5, 0.7] }], in_training: false }] } },
    {
      request: { id: 'embeddings' },
      result: {
        estimator: { id: 1, name: 'est', source: 'database' }, note: null, seed: 1,
        models: { perplexity: 2, kl: 0.1, points: [{ model: 'gpt-5', tier: 'premium', x: 0, y: 0, turns: 10, price_in_per_m: 1.25, price_out_per_m: 10 }, { model: 'kimi-k2', tier: 'budget', x: 1, y: 1, turns: 5, price_in_per_m: 0.6, price_out_per_m: 2.5 }] },
        histories: {
          color: 'model', sketched: 2, perplexity: 2, kl: 0.1,
          points: [{ episode: 'e1', episode_id: 1, run: 'r', turn: 0, model: 'gpt-5', outcome: 0.5, success: true, x: 0, y: 0 }, { episode: 'e1', episode_id: 1, run: 'r', turn: 1, model: 'kimi-k2', outcome: 0.5, success: true, x: 1, y: 1 }],
        },
      },
    },
  ];
  it('has a figure for every analysis', () => {
    expect(Object.keys(FIGURES).sort()).toEqual(responses.map((r) => r.request.id).sort());
  });
  for (const response of responses) {
    it(`${response.request.id}: stays inside the figure, explains its data marks, and has CSV`, () => {
      const s = figureScene(response, ctx);
      expect(s.width).toBe(600);
      for (const m of flat(s.marks)) {
        if (m.type === 'rect') expect(m.x + m.width).toBeLessThanOrEqual(600 + 0.5);
        if (m.type === 'circle') expect(m.cx).toBeLessThanOrEqual(600);
        if (m.type === 'text' && !m.rotate && m.anchor !== 'end' && m.anchor !== 'middle') expect(m.x + textWidth(m.text, m.fontSize)).toBeLessThanOrEqual(600 + 1);
        if (['cell', 'point', 'bar', 'segment', 'node'].includes(m.role ?? '')) expect(m.datum?.lines.length).toBeGreaterThan(1);
      }
      expect(s.height).toBeGreaterThan(50);
      expect(figureCsv(response).split('\r\n')[0]).toMatch(/^[a-z_]+(,[a-z_]+)+$/);
    });
  }
  it('links a DAG node and a target turn to the turn', () => {
    const dag = figureScene(responses[5] as AnalysisResponse, ctx);
    expect(byRole(dag, 'node').map((m) => m.datum?.link)).toEqual([
      { kind: 'episode-ref', ext_id: 'e1', run: 'r', turn: 0 },
      { kind: 'episode-ref', ext_id: 'e1', run: 'r', turn: 0 },
    ]);
    const targets = figureScene(responses[9] as AnalysisResponse, ctx);
    expect(byRole(targets, 'point').map((m) => m.datum?.link)).toEqual([
      { kind: 'episode-ref', ext_id: 'e1', run: 'r', turn: 0 },
      { kind: 'episode-ref', ext_id: 'e1', run: 'r', turn: 1 },
    ]);
  });
});
