// One colour per run in every figure of a selection (issue 35 item 4): the figures colour runs from the selection's
// drawn runs (request.draw), never from what each happens to draw; runs never look like models; every series mark
// and legend swatch names its series (data-series in the window and the SVG export); no two models of one figure
// share a colour.
import { describe, expect, it } from 'vitest';
import type { AnalysisResponse, CalibrationBin, ErrorRecoveryResult } from '../../analysisResults.ts';
import type { CompareResult } from '../../apiCompare.ts';
import type { FigureContext } from '../context.ts';
import { figureScene } from '../figures.ts';
import { MODEL_PALETTE, RUN_PALETTE, UNKNOWN_MODEL_COLOR } from '../palette.ts';
import type { Mark, Scene } from '../scene.ts';
import { sceneToSvg } from '../sceneToSvg.ts';
import { DARK_THEME, LIGHT_THEME } from '../theme.ts';
import { compareModelCostLayout } from './compareModelCost.ts';
import { planDagLayout } from './planDag.ts';

const flat = (marks: Mark[]): Mark[] => marks.flatMap((m) => (m.type === 'group' ? [m, ...flat(m.marks)] : [m]));
const paintOf = (m: Mark): string | undefined => (m.type === 'line' || (m.type === 'path' && !m.fill) ? m.stroke : m.fill);

/** Eight runs; the selection draws six of them, not the first six by name. */
const RUNS = ['alpha', 'bravo', 'charlie', 'delta', 'echo', 'foxtrot', 'golf', 'hotel'];
const DRAWN = ['bravo', 'charlie', 'echo', 'foxtrot', 'golf', 'hotel'];

const ci: ErrorRecoveryResult['groups'][number]['ci'] = { p_switch: [0.1, 0.9], p_recover: [0.1, 0.9], p_recover_stay: [0.1, 0.9], p_recover_switch: [0.1, 0.9] };
const bins = (): CalibrationBin[] => Array.from({ length: 4 }, (_, i) => ({ lo: i / 4, hi: (i + 1) / 4, n: 5, mean_s_hat: i / 4 + 0.1, mean_s_tilde: i / 4, ci: [i / 4 - 0.1, i / 4 + 0.1] }));
const fit = () => ({ n: 20, mae: 0.1, spearman: 0.5, bins: bins() });

/** The figures that draw runs in run colours, each with data for a different subset of the runs. */
function responses(draw: string[]): AnalysisResponse[] {
  const request = { runs: RUNS, draw };
  return [
    {
      request: { ...request, id: 'pareto' },
      result: { reference: null, points: RUNS.map((run, i) => ({ run, n: 10, mean_score: i / 10, mean_cost: 0.1 * (i + 1), frontier: i === 7, savings_vs_reference: null, score_delta_vs_reference: null })) },
    },
    {
      // No successful episode in bravo or echo: switch-cost has only six runs, and draws four.
      request: { ...request, id: 'switch-cost' },
      result: {
        runs: RUNS.filter((r) => r !== 'bravo' && r !== 'echo').map((run, i) => ({
          run, episodes: [{ episode: `${run}-1`, switches: i, cost: 0.01 * i, turns: 5 }, { episode: `${run}-2`, switches: i + 1, cost: 0.02 * i, turns: 6 }],
          mean_cumulative_cost: [{ t: 0, mean: 0.01, n: 2 }, { t: 1, mean: 0.02, n: 2 }],
        })),
      },
    },
    {
      // charlie had no error; the order here is not the order by name.
      request: { ...request, id: 'error-recovery' },
      result: {
        groups: [...RUNS].reverse().map((run) => ({
          run, n: run === 'charlie' ? 0 : 12, p_switch: run === 'charlie' ? null : 0.5, p_recover: run === 'charlie' ? null : 0.4, p_recover_stay: run === 'charlie' ? null : 0.3,
          p_recover_switch: run === 'charlie' ? null : 0.6, n_stay: 6, n_switch: 6, ci,
        })),
      },
    },
    {
      request: { ...request, id: 'calibration' },
      result: { estimator: { id: 1, name: 'est' }, note: null, overall: fit(), runs: RUNS.slice(2).map((run) => ({ run, ...fit(), in_training: false })) },
    },
    {
      request: { ...request, id: 'usage-ratio' },
      result: {
        runs: RUNS.map((run) => ({
          run, calls: 10, usage: [{ model: 'gpt-5', calls: 10, ratio: 1, rho: null, over_target: null }],
          accuracy_by_max_turns: [{ max_turns: 3, n: 4, accuracy: 0.5 }, { max_turns: 5, n: 4, accuracy: 0.75 }], exhausted_turn_budget: null,
        })),
      },
    },
    {
      // runAnalysis puts the drawn runs side by side.
      request: { ...request, id: 'budget-modes' },
      result: {
        modes: [],
        by_run: draw.map((run) => ({ run, modes: [{ mode: 'low', n: 3, mean_score: 0.5, mean_cost: 0.1, expert_call_ratio: 0.2, ci: { mean_score: null, mean_cost: null, expert_call_ratio: [0.04, 0.6] }, by_train_step: [] }] })),
        by_run_omitted: RUNS.filter((r) => !draw.includes(r)),
      },
    },
  ] as AnalysisResponse[];
}

/** Each run's colours over the figures (series marks and legend swatches), by figure. */
function coloursByRun(scenes: Scene[]): Map<string, Set<string>> {
  const out = new Map<string, Set<string>>();
  for (const s of scenes) {
    for (const m of flat(s.marks)) {
      const paint = paintOf(m);
      if (m.series === undefined || !RUNS.includes(m.series) || m.role === 'na' || paint === undefined) continue;
      out.set(m.series, (out.get(m.series) ?? new Set()).add(paint));
    }
  }
  return out;
}

describe('run colours', () => {
  for (const theme of [LIGHT_THEME, DARK_THEME]) {
    it(`give each run one colour in every figure of the selection, and two drawn runs never one colour (${theme.name})`, () => {
      const ctx: FigureContext = { theme, width: 900, modelColor: () => MODEL_PALETTE[0] as string };
      const scenes = responses(DRAWN).map((r) => figureScene(r, ctx));
      const colours = coloursByRun(scenes);
      expect([...colours.keys()].sort()).toEqual(DRAWN);
      for (const [run, set] of colours) expect([...set], run).toHaveLength(1);
      const each = DRAWN.map((r) => [...(colours.get(r) ?? [])][0] as string);
      expect(new Set(each).size).toBe(DRAWN.length);
      // Muted run colours, never a model's.
      for (const c of each) {
        expect(RUN_PALETTE).toContain(c);
        expect([...MODEL_PALETTE, UNKNOWN_MODEL_COLOR]).not.toContain(c);
      }
    });
  }

  it('keep a run’s colour when the selection draws other runs beside it', () => {
    const ctx: FigureContext = { theme: LIGHT_THEME, width: 900, modelColor: () => MODEL_PALETTE[0] as string };
    const of = (draw: string[]) => coloursByRun(responses(draw).map((r) => figureScene(r, ctx)));
    const a = of(['golf', 'hotel']);
    const b = of(['delta', 'golf', 'hotel']);
    expect(a.get('golf')?.size).toBe(1);
    expect(b.get('golf')).toEqual(a.get('golf'));
    expect(b.get('hotel')).toEqual(a.get('hotel'));
  });

  it('name every run a figure leaves out in the figure itself', () => {
    const ctx: FigureContext = { theme: LIGHT_THEME, width: 900, modelColor: () => MODEL_PALETTE[0] as string };
    for (const response of responses(DRAWN)) {
      const scene = figureScene(response, ctx);
      const said = flat(scene.marks).filter((m) => m.role === 'left-out').map((m) => (m.type === 'text' ? m.text : '')).join(' ');
      const withData = RUNS.filter((r) => JSON.stringify(response.result).includes(`"${r}"`));
      const left = withData.filter((r) => !DRAWN.includes(r));
      expect(left.length, response.request.id).toBeGreaterThan(0);
      expect(said, response.request.id).toMatch(new RegExp(`: ${left.join(', ')}$`));
      for (const r of DRAWN) expect(said, response.request.id).not.toContain(r);
    }
  });
});

describe('data-series in the exported SVG', () => {
  const hostile = 'run "<b>" & \'co\'';
  const ctx: FigureContext = { theme: LIGHT_THEME, width: 720, modelColor: () => MODEL_PALETTE[0] as string };
  const [pareto, switchCost] = responses([...DRAWN.slice(0, 5), hostile]).map((r) => {
    const rename = JSON.parse(JSON.stringify(r).replaceAll('"hotel"', JSON.stringify(hostile))) as AnalysisResponse;
    return { ...rename, request: { ...rename.request, draw: [...DRAWN.slice(0, 5), hostile] } } as AnalysisResponse;
  });

  it('is on every series mark and legend swatch, attribute-escaped', () => {
    for (const response of [pareto!, switchCost!]) {
      const scene = figureScene(response, ctx);
      const svg = sceneToSvg(scene);
      const marks = flat(scene.marks).filter((m) => m.series !== undefined);
      expect(marks.length).toBeGreaterThanOrEqual(6);
      expect(svg.match(/ data-series="/g)).toHaveLength(marks.length);
      expect(svg).toContain('data-series="run &quot;&lt;b&gt;&quot; &amp; &#39;co&#39;"');
      expect(svg).not.toContain('<b>');
      // Every coloured data mark says whose it is.
      const unnamed = flat(scene.marks).filter((m) => ['point', 'bar', 'cell', 'curve', 'mean-line', 'legend-swatch'].includes(m.role ?? '') && m.series === undefined);
      expect(unnamed.filter((m) => m.role !== 'legend-swatch' || RUN_PALETTE.includes(paintOf(m) ?? ''))).toEqual([]);
    }
  });
});

describe('model colours in one figure', () => {
  // Every model's own colour the same: the worst case of color_index wrapping round the palette.
  const ctx: FigureContext = { theme: LIGHT_THEME, width: 900, modelColor: Object.assign(() => MODEL_PALETTE[7] as string, { order: () => 0 }) };
  const modelsOf = (scene: Scene, role: string) => {
    const byModel = new Map<string, Set<string>>();
    for (const m of flat(scene.marks)) if (m.role === role && m.series) byModel.set(m.series, (byModel.get(m.series) ?? new Set()).add(paintOf(m) as string));
    return byModel;
  };

  it('differ in a plan DAG', () => {
    const scene = planDagLayout(
      { episode: 'e1', run: 'r', mode: null, rounds: [{ round: 0, turn: 0, edges: [['a', 'b']], nodes: [
        { id: 'a', primitive: 'solve', model: 'gpt-4o-mini', status: 'ok' }, { id: 'b', primitive: 'check', model: 'chatgpt-4o-latest', status: 'ok' },
      ] }] },
      ctx,
    );
    const bands = modelsOf(scene, 'node-band');
    expect([...bands.keys()].sort()).toEqual(['chatgpt-4o-latest', 'gpt-4o-mini']);
    expect(new Set([...bands.values()].flatMap((s) => [...s])).size).toBe(2);
  });

  it('differ in Compare’s cost per model', () => {
    const attribution = (models: string[]) => models.map((model) => ({ model, scope: 'main', calls: 3, tokens_in: 1, tokens_out: 1, tokens_cached: 0, tokens_cache_write: 0, cost: 0.5, unknown_calls: 0 }));
    const result = { a: { label: 'A run', runs: ['x'] }, b: { label: 'B run', runs: ['y'] }, attribution: { a: attribution(['gpt-4o-mini', 'gpt-4o']), b: attribution(['chatgpt-4o-latest']) } } as unknown as CompareResult;
    const bars = modelsOf(compareModelCostLayout(result, ctx), 'bar-main');
    expect(bars.size).toBe(3);
    expect(new Set([...bars.values()].flatMap((s) => [...s])).size).toBe(3);
  });
});
