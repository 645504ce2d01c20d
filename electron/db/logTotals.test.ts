// The log's own totals beside the turns (fixtures/samples/canonical/PROVENANCE.md: real Codex and mini-swe-agent
// usage): stored per episode, a difference over 0.5% warned with the file and both figures, agreement silent.
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import type { CanonicalEpisode } from '../../shared/canonical.ts';
import { importPaths } from '../importers/pipeline.ts';
import { useTempDir } from '../testing/tmp.ts';
import { openDatabase } from './database.ts';
import { reconcile, reconciliationWarning } from './logTotals.ts';

const samples = fileURLToPath(new URL('../../fixtures/samples/canonical/', import.meta.url));
const tempDir = useTempDir();

describe('log totals at import', () => {
  it('stores the totals of a log that agrees with its turns, and says nothing', async () => {
    const db = openDatabase(join(tempDir(), 'a.db'));
    const report = await importPaths(db, [join(samples, 'log-totals-agree.jsonl')]);
    expect(report.files[0]?.status).toBe('imported');
    expect(report.warnings.filter((w) => w.includes('log total'))).toEqual([]);
    const rows = db.prepare(`SELECT e.ext_id, l.* FROM episode_log_totals l JOIN episodes e ON e.id = l.episode_id ORDER BY e.ext_id`).all() as Record<string, unknown>[];
    expect(rows).toHaveLength(2);
    const [codex, mini] = [rows.find((r) => r.source !== 'info.model_stats'), rows.find((r) => r.source === 'info.model_stats')];
    // Codex totals tokens only: requests and cost are not totalled, so not compared.
    expect(codex).toMatchObject({
      requests: null, cost: null, tokens_in: 270530, counted_tokens_in: 270530, tokens_cached: 136832, counted_tokens_cached: 136832,
      tokens_out: 12551, counted_tokens_out: 12551, tokens_reasoning: 9536, counted_tokens_reasoning: 9536, counted_requests: 19, compared: 4, differing: 0,
    });
    expect(mini).toMatchObject({ requests: 17, counted_requests: 17, compared: 2, differing: 0, worst_rel: null, tokens_in: null });
    expect(mini?.cost).toBeCloseTo(0.0893484, 10);
    expect(mini?.counted_cost).toBeCloseTo(0.0893484, 10);
    db.close();
  });

  it('warns with the file and both figures when the turns fall short of the log total', async () => {
    const db = openDatabase(join(tempDir(), 'd.db'));
    const file = join(samples, 'log-totals-differ.jsonl');
    const report = await importPaths(db, [file]);
    expect(report.files[0]?.status).toBe('imported');
    expect(report.warnings, JSON.stringify(report.warnings)).toContain(
      `${file}: episode django__django-16255: log total $0.08935 vs turns $0.0858 (−4.0%); log total 17 requests vs 16 turns (−5.9%) (log totals from info.model_stats)`,
    );
    const row = db.prepare('SELECT differing, worst_rel, counted_requests FROM episode_log_totals').get() as Record<string, number>;
    expect(row.differing).toBe(2);
    expect(row.counted_requests).toBe(16);
    expect(row.worst_rel).toBeCloseTo(1 / 17, 6);
    db.close();
  });
});

describe('reconcile', () => {
  const ep = (over: Partial<CanonicalEpisode>): CanonicalEpisode => ({
    schema: 'routelens/v1', run: 'r', episode_id: 'e', task: {}, outcome: {},
    turns: [
      { t: 0, model: 'gpt-5', action: { type: 'tool' }, tokens: { in: 1000, out: 100, cached: 400 } },
      { t: 1, model: 'gpt-5', action: { type: 'tool' }, tokens: { in: 2000, out: 50 } },
    ],
    ...over,
  }) as CanonicalEpisode;

  it('compares only the kinds the log totals, and within 0.5% they agree', () => {
    const r = reconcile(ep({ log_totals: { source: 's', tokens: { in: 3010, out: 150 } } }), { value: 0.01, basis: 'turns' });
    expect(r?.compared.map((c) => c.kind)).toEqual(['in', 'out']);
    expect(r?.differing).toBe(0);
    expect(reconciliationWarning('e', r)).toBeNull();
  });

  it('leaves out a kind the turns never log: not compared, so neither a match nor a difference', () => {
    const r = reconcile(ep({ log_totals: { source: 's', tokens: { cache_write: 500 } } }), { value: null, basis: 'turns' });
    expect(r).toMatchObject({ compared: [], notComparable: ['cache_write'], differing: 0 });
    expect(reconciliationWarning('e', r)).toBeNull();
  });

  it("does not check a cost that is the log's own total against itself", () => {
    const r = reconcile(ep({ cost_usd: 0, log_totals: { source: 'crush sessions.cost', cost_usd: 0 } }), { value: 0, basis: 'episode_cost' });
    expect(r).toMatchObject({ compared: [], notComparable: ['cost'] });
  });

  it('says an unknown episode cost against a logged total', () => {
    const r = reconcile(ep({ log_totals: { source: 's', cost_usd: 1.23 } }), { value: null, basis: 'turns' });
    expect(reconciliationWarning('e', r)).toBe('episode e: log total $1.23 vs turns unknown (calls without a known cost) (log totals from s)');
  });

  it('compares the requests of a log whose tokens are per session only (Copilot CLI), not its tokens', () => {
    const bare = ep({
      turns: [{ t: 0, model: 'gpt-5', action: { type: 'message' } }],
      usage_totals: [{ model: 'gpt-5', requests: 3, tokens: { in: 900, out: 90 } }],
      log_totals: { source: 'session.shutdown modelMetrics', requests: 3, tokens: { in: 900, out: 90 } },
    });
    const r = reconcile(bare, { value: 0.002, basis: 'usage_totals' });
    expect(r?.compared.map((c) => c.kind)).toEqual(['requests']);
    expect(r?.notComparable).toEqual(['in', 'out']);
    expect(reconciliationWarning('e', r)).toBe('episode e: log total 3 requests vs 1 turns (−66.7%) (log totals from session.shutdown modelMetrics)');
  });

  it('takes a cost the log gives in whole cents as rounded to the cent (Aider prints "$0.03 session")', () => {
    // Figures from the team's Aider sample (../shared/data/aider/chat-history.md): sessions of 2024-08-08 09:54 and 2024-08-13 05:54.
    const rounded = reconcile(ep({ log_totals: { source: 'aider', cost_usd: 0.03 } }), { value: 0.031, basis: 'turns' });
    expect(rounded?.differing).toBe(0);
    const off = reconcile(ep({ log_totals: { source: 'aider', cost_usd: 0.03 } }), { value: 0.0475, basis: 'turns' });
    expect(reconciliationWarning('e', off)).toBe('episode e: log total $0.03 vs turns $0.0475 (+58.3%) (log totals from aider)');
    // A figure with finer digits is exact: 0.5% still applies (mini-swe-agent's instance_cost).
    expect(reconcile(ep({ log_totals: { source: 'm', cost_usd: 0.0893484 } }), { value: 0.0893484 * 1.006, basis: 'turns' })?.differing).toBe(1);
  });

  it('allows half a cent for each turn cost the log gives in whole cents (Aider rounds every message to the cent)', () => {
    const cents = (costs: number[], total: number) =>
      ep({ turns: costs.map((c, t) => ({ t, model: 'gpt-4o', action: { type: 'message' }, cost_usd: c })), log_totals: { source: 'aider', cost_usd: total } });
    // Three messages printed as $0.01, $0.02, $0.01 in a session that printed $0.06: each may be half a cent short.
    expect(reconcile(cents([0.01, 0.02, 0.01], 0.06), { value: 0.04, basis: 'turns' })?.differing).toBe(0);
    // Past that allowance it is a difference; and turns with finer digits are exact, so they allow nothing.
    expect(reconcile(cents([0.01, 0.02, 0.01], 0.07), { value: 0.04, basis: 'turns' })?.differing).toBe(1);
    expect(reconcile(cents([0.011, 0.021, 0.011], 0.05), { value: 0.043, basis: 'turns' })?.differing).toBe(1);
  });

  it('returns null for a log without totals', () => {
    expect(reconcile(ep({}), { value: 0, basis: 'turns' })).toBeNull();
  });
});
