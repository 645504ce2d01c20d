import { describe, expect, it } from 'vitest';
import { PolicyDiffResult, ReplayResult, type PolicyReplay } from '../../../shared/apiReplay.ts';
import { policyFrontierCsv } from '../../../shared/charts/layouts/policyFrontier.ts';
import { diffCsv, estimatorLabel, exportName, frontierPolicies, labNotes, opeNote, replayCsv, scoreOf, type ScoreEstimator } from './policyResults.ts';

const policy = (over: Partial<PolicyReplay>): PolicyReplay => ({
  policy: 'logged',
  label: 'logged choices',
  episodes: 4,
  turns: 20,
  agreement: 1,
  episode_agreement: 1,
  first_divergence: { histogram: [], never: 4, median: null },
  est_score: null,
  est_score_ci: null,
  est_cost: 0.12,
  est_cost_ci: [0.1, 0.14],
  switches: 1.5,
  usage: { 'gpt-5': 1 },
  ope: null,
  notes: [],
  ...over,
});

const SUPPORTED = { ips: null, wis: null, dr: null };

// Parsed through the contract's schema, so the example is a valid answer of the core.
const result = ReplayResult.parse({
  runs: [{ id: 1, name: 'sw run' }],
  estimator: null,
  s_hat_source: 'logged_candidates',
  episodes: 4,
  turns: 20,
  logged: { score: 0.5, cost: 0.12 },
  output_ratio: {},
  policies: [
    policy({ ope: { n: 4, ips: 0.5, wis: 0.5, dr: null, ess: 4, ci: { ips: [0.3, 0.7], wis: [0.35, 0.65], dr: null }, support: SUPPORTED } }),
    policy({
      policy: 'cheapest',
      label: 'cheapest model',
      agreement: 0.25,
      episode_agreement: 0,
      first_divergence: { histogram: [{ t: 0, n: 3 }, { t: 2, n: 1 }], never: 0, median: 0 },
      est_cost: 0.02,
      est_cost_ci: null,
      switches: 0,
      ope: { n: 4, ips: 0.2, wis: null, dr: null, ess: 0, ci: { ips: [0, 0.4], wis: null, dr: null }, support: SUPPORTED },
    }),
  ],
  frontier: [{ policy: 'logged', cost: 0.12, cost_ci: [0.1, 0.14], score: 0.5, score_ci: [0.35, 0.65], score_source: 'wis', frontier: true }],
  bootstrap: 200,
  seed: 1,
  notes: [],
});

describe('the figure’s points', () => {
  const color = (i: number) => `c${i}`;
  it('best: the core’s frontier score per policy; a policy without one is listed as missing', () => {
    const pts = frontierPolicies(result, 'best', color);
    expect(pts.map((p) => [p.policy, p.score, p.ci, p.cost, p.color, p.missing])).toEqual([
      ['logged', 0.5, [0.35, 0.65], 0.12, 'c0', undefined],
      ['cheapest', null, null, 0.02, 'c1', 'no score estimate'],
    ]);
    expect(pts[0]?.details?.[0]).toBe('estimate: WIS');
    expect(pts[0]?.costCi).toEqual([0.1, 0.14]);
  });

  it('one estimator: its value and CI, or why it is empty', () => {
    expect(frontierPolicies(result, 'ips', color).map((p) => [p.score, p.ci])).toEqual([
      [0.5, [0.3, 0.7]],
      [0.2, [0, 0.4]],
    ]);
    const [logged, cheapest] = result.policies as [PolicyReplay, PolicyReplay];
    expect(scoreOf(cheapest, 'wis')).toEqual({ score: null, ci: null, missing: 'no episode with a non-zero weight' });
    expect(scoreOf(logged, 'dr').missing).toBe('DR needs an estimator');
    expect(scoreOf(logged, 'dm').missing).toBe('no ŝ from an estimator');
    expect(scoreOf(policy({}), 'ips').missing).toBe('no logged propensities');
  });

  it('an estimate without support is no point of the figure, its reason is why', () => {
    const weak = 'insufficient support: an effective sample size of 1.9 of 180 episodes (under 10)';
    const none = 'no support in the log: this policy departs from the logged choices in all 180 episodes (every importance weight is 0)';
    const argmax = policy({
      policy: 'argmax',
      ope: { n: 180, ips: 1.031, wis: 0.9, dr: null, ess: 1.9, ci: { ips: [0.2, 1.44], wis: [0.5, 1], dr: null }, support: { ips: weak, wis: weak, dr: null } },
    });
    expect(scoreOf(argmax, 'ips')).toEqual({ score: null, ci: null, missing: weak });
    expect(scoreOf(argmax, 'wis')).toEqual({ score: null, ci: null, missing: weak });
    const cheapest = policy({
      policy: 'cheapest',
      ope: { n: 180, ips: null, wis: null, dr: null, ess: 0, ci: { ips: null, wis: null, dr: null }, support: { ips: none, wis: none, dr: none } },
    });
    expect(scoreOf(cheapest, 'ips').missing).toBe(none);
    // Under "best" the core's frontier point stands (the direct method here), and the hover says what was passed over.
    const best = frontierPolicies({ ...result, policies: [argmax], frontier: [{ policy: 'argmax', cost: 0.05, cost_ci: null, score: 0.8, score_ci: null, score_source: 'dm', frontier: true }] }, 'best', color);
    expect(best[0]?.details?.slice(0, 2)).toEqual(['estimate: DM', `IPS / WIS not used: ${weak}`]);
    const csv = replayCsv({ ...result, policies: [argmax] }).trimEnd().split('\r\n');
    const header = (csv[0] as string).split(',');
    expect((csv[1] as string).split(',')[header.indexOf('ips_support')]).toBe(weak);
  });
});

describe('exports', () => {
  it('writes one CSV row per policy with CI bounds in their own columns and empty cells for nulls', () => {
    const lines = replayCsv(result).trimEnd().split('\r\n');
    expect(lines).toHaveLength(3);
    const header = (lines[0] as string).split(',');
    const cheapest = (lines[2] as string).split(',');
    const cell = (name: string) => cheapest[header.indexOf(name)];
    expect(cell('policy')).toBe('cheapest');
    expect(cell('agreement')).toBe('0.25');
    expect(cell('first_divergence_median')).toBe('0');
    expect(cell('est_score')).toBe('');
    expect(cell('ips_lo')).toBe('0');
    expect(cell('ips_hi')).toBe('0.4');
    expect(cell('wis')).toBe('');
    expect(cell('s_hat_source')).toBe('logged_candidates');
    expect(cell('runs')).toBe('sw run');
  });

  it('writes the diff rows, naming each side’s policy in the header', () => {
    const diff = PolicyDiffResult.parse({
      kind: 'policies',
      a: 'logged',
      b: 'cheapest',
      estimator: null,
      s_hat_source: 'none',
      summary: {
        pairs: 4,
        turns: 20,
        disagreements: 1,
        disagreement_rate: 0.05,
        mean_delta_s_hat: { estimate: null, ci: null },
        delta_score: { estimate: null, ci: null, method: null },
        delta_cost: { estimate: -0.1, ci: [-0.12, -0.08] },
      },
      rows: [{ episode: 7, episode_b: null, ext_id: '=cmd|x', task_id: 't1', t: 3, a: 'gpt-5', b: 'kimi-k2', delta_s_hat: null }],
      total_rows: 1,
    });
    expect(diffCsv(diff)).toBe(
      'episode,episode_b,ext_id,task_id,turn,choice_a (logged),choice_b (cheapest),delta_s_hat\r\n' +
        // A log-supplied id that starts like a formula is defused for spreadsheets.
        "7,,'=cmd|x,t1,3,gpt-5,kimi-k2,\r\n",
    );
  });

  it('names files after what was replayed, safely', () => {
    expect(exportName('policy-replay', [{ name: 'sw run/../x' }], undefined, '2026-11-24')).toBe('policy-replay_sw-run-x_2026-11-24.csv');
    expect(exportName('policy-diff', [{ name: 'a' }, { name: 'b' }], 'fixed:gpt-5-vs-random', '2026-11-24')).toBe('policy-diff_fixed-gpt-5-vs-random_a+b_2026-11-24.csv');
  });
});

describe('opeNote', () => {
  it('explains empty OPE columns, and DR alone being empty without an estimator', () => {
    expect(opeNote(result)).toMatch(/DR needs ŝ from an estimator/);
    const none = { ...result, policies: result.policies.map((p) => ({ ...p, ope: null })) };
    expect(opeNote(none)).toMatch(/none of the 4 replayed episodes has a logged propensity on every turn/);
    expect(opeNote({ ...result, s_hat_source: 'estimator' })).toBeNull();
  });
});

describe('labNotes', () => {
  it('says a note shared by every policy once, names the policies of one shared by some, and keeps the replay notes', () => {
    const ope = 'off-policy estimates use the 3 of 4 episodes with a logged propensity on every turn and a known score';
    const r = ReplayResult.parse({
      ...result,
      notes: ['1 of 4 episodes have no outcome'],
      policies: [
        policy({ notes: [ope, 'kept the logged model at 2 turns without ŝ'] }),
        policy({ policy: 'cheapest', notes: [ope, 'kept the logged model at 2 turns without ŝ'] }),
        policy({ policy: 'random', notes: [ope] }),
      ],
    });
    expect(labNotes(r)).toEqual([
      { policies: null, note: '1 of 4 episodes have no outcome' },
      { policies: null, note: ope },
      { policies: ['logged', 'cheapest'], note: 'kept the logged model at 2 turns without ŝ' },
    ]);
  });

  it('names the policy when only one was replayed', () => {
    const r = ReplayResult.parse({ ...result, notes: [], policies: [policy({ notes: ['a note'] })] });
    expect(labNotes(r)).toEqual([{ policies: ['logged'], note: 'a note' }]);
  });
});

describe('the score/cost figure as CSV', () => {
  const frontierCsv = (r: typeof result, e: ScoreEstimator) =>
    policyFrontierCsv({ policies: frontierPolicies(r, e, () => '#000000'), estimator: estimatorLabel(e) }, r.runs.map((x) => x.name));
  it('writes the points the figure draws under the estimator shown, with the frontier and why a point is missing', () => {
    const lines = frontierCsv(result, 'ips').trim().split('\r\n');
    expect(lines[0]).toBe('policy,estimate,est_score,est_score_lo,est_score_hi,est_cost_usd,est_cost_lo_usd,est_cost_hi_usd,on_frontier,not_drawn_because,runs');
    expect(lines[1]).toBe('logged,IPS,0.5,0.3,0.7,0.12,0.1,0.14,true,,sw run');
    expect(lines[2]).toBe('cheapest,IPS,0.2,0,0.4,0.02,,,true,,sw run');
    expect(frontierCsv(result, 'dm').split('\r\n')[1]).toContain('no ŝ from an estimator');
  });
});
