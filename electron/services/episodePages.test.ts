// A long episode a page at a time (issue 38 item 6): past TURN_PAGE turns getEpisode answers an outline of every turn
// and one page in full, getTurns the other pages. Read page by page, the episode equals the one read whole: every turn
// (text, errors, candidates, targets, the messages before it), the running cost across pages (stopped at the first
// unknown cost), and the outline says of every turn what the whole reading does.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { COST_SOURCES, TURN_PAGE, type RouteLensApi, type TurnDetail } from '../../shared/api.ts';
import { openDatabase } from '../db/database.ts';
import type { Db } from '../db/dbHandle.ts';
import { importPaths } from '../importers/pipeline.ts';
import { useSuiteTempDir } from '../testing/tmp.ts';
import { createApi, wholeTurns } from './api.ts';
import { pageStart } from './episodePages.ts';

const tempDir = useSuiteTempDir();
const TURNS = 2 * TURN_PAGE + 500;
/** From this turn on, a model without a price and no logged cost: the running cost is unknown. */
const UNKNOWN_FROM = 2 * TURN_PAGE + 100;
let db: Db;
let api: RouteLensApi;
let id = 0;

beforeAll(async () => {
  const dir = tempDir();
  const file = join(dir, 'long.jsonl');
  const turns = Array.from({ length: TURNS }, (_, t) => ({
    t,
    model: t >= UNKNOWN_FROM ? 'mystery-model-x' : ['gpt-5', 'kimi-k2'][Math.floor(t / 7) % 2],
    action: { type: 'tool', tool: 'bash', text: `echo ${t}` },
    observation: `out ${t}`,
    ...(t >= UNKNOWN_FROM ? {} : { cost_usd: 0.001 * ((t % 5) + 1) }),
    candidates: t % 50 === 0 ? { 'gpt-5': 0.5, 'kimi-k2': 0.25 } : undefined,
    errors: t % 100 === 99 ? [{ type: 'timeout', severity: t % 300 === 299 ? 'high' : 'low' }] : [],
    ...(t === TURN_PAGE + 17 ? { inputs: [{ role: 'user', text: 'keep going, mid-session', timestamp: null }] } : {}),
  }));
  writeFileSync(file, `${JSON.stringify({
    schema: 'routelens/v1', run: 'long', episode_id: 'long-1', task: { text: 'Go on.', expected_steps: 40 }, outcome: { success: true, score: 1 },
    turns, final_messages: [{ role: 'user', text: 'stop here', timestamp: null }],
  })}\n`);
  db = openDatabase(join(dir, 'long.db'));
  const report = await importPaths(db, [file]);
  expect(report.files.map((f) => f.status)).toEqual(['imported']);
  api = createApi(db, ':memory:');
  id = db.prepare("SELECT id FROM episodes WHERE ext_id = 'long-1'").pluck().get() as number;
});

describe('a long episode, a page at a time', () => {
  it('pages are aligned and hold the turn asked for', () => {
    expect(pageStart(TURNS, undefined)).toBe(0);
    expect(pageStart(TURNS, TURN_PAGE + 5)).toBe(TURN_PAGE);
    expect(pageStart(TURNS, 10 ** 9)).toBe(2 * TURN_PAGE);
    expect(pageStart(TURN_PAGE, TURN_PAGE - 1)).toBe(0);
  });

  it('reads, page by page, the same turns as the whole reading, with the running cost carried across pages', async () => {
    const whole = wholeTurns(db, id);
    const first = await api.getEpisode({ id });
    expect({ count: first.turn_count, from: first.turns_from, length: first.turns.length }).toEqual({ count: TURNS, from: 0, length: TURN_PAGE });
    const pages: TurnDetail[] = [...first.turns];
    for (let from = TURN_PAGE; from < TURNS; from += TURN_PAGE) {
      const page = await api.getTurns({ id, from, count: TURN_PAGE });
      expect(page.from).toBe(from);
      pages.push(...page.turns);
    }
    expect(pages).toEqual(whole.turns);
    expect(first.final_messages).toEqual(whole.final);
    // What the comparison rests on: the page boundary's running cost, a message, candidates and the unknown cost.
    expect(pages[TURN_PAGE]?.cumulative_cost).toBeCloseTo((pages[TURN_PAGE - 1]?.cumulative_cost ?? NaN) + (pages[TURN_PAGE]?.cost ?? NaN), 9);
    expect(pages[TURN_PAGE + 17]?.inputs.map((m) => m.text)).toEqual(['keep going, mid-session']);
    expect(pages[2 * TURN_PAGE]?.candidates).toEqual({ 'gpt-5': 0.5, 'kimi-k2': 0.25 });
    expect(pages[UNKNOWN_FROM - 1]?.cumulative_cost).not.toBeNull();
    expect(pages[UNKNOWN_FROM]?.cumulative_cost).toBeNull();
    expect(first.final_messages.map((m) => m.text)).toEqual(['stop here']);
  });

  it('opens at the page of the turn asked for, and the outline says of every turn what the whole reading does', async () => {
    const whole = wholeTurns(db, id).turns;
    const detail = await api.getEpisode({ id, around: TURNS - 1 });
    expect(detail.turns_from).toBe(2 * TURN_PAGE);
    expect(detail.turns).toEqual(whole.slice(2 * TURN_PAGE));
    const outline = detail.outline;
    if (!outline) throw new Error('a long episode comes with its outline');
    expect(outline.t).toEqual(whole.map((t) => t.t));
    expect(outline.model.map((m) => outline.models[m])).toEqual(whole.map((t) => t.model));
    expect(outline.cost).toEqual(whole.map((t) => t.cost));
    expect(outline.cost_source.map((c) => COST_SOURCES[c])).toEqual(whole.map((t) => t.cost_source));
    expect(outline.switched).toEqual(whole.map((t) => (t.switched ? 1 : 0)));
    expect(outline.errors).toEqual(whole.flatMap((t, i) => (t.errors.length > 0 ? [{ i, errors: t.errors, max_severity: t.max_severity }] : [])));
    expect(outline.errors.length).toBe(Math.floor(TURNS / 100));
  });

  it("answers the debugger's choices for a page as the same turns of the whole answer (chosen along the whole history)", async () => {
    const ask = { episode: id, policies: ['cheapest', 'random:3'] };
    const whole = await api.episodePolicyChoices(ask);
    const page = await api.episodePolicyChoices({ ...ask, from: TURN_PAGE, count: TURN_PAGE });
    expect(whole.turns).toHaveLength(TURNS);
    expect(page.turns).toEqual(whole.turns.slice(TURN_PAGE, 2 * TURN_PAGE));
    expect((await api.episodePolicyChoices({ ...ask, from: 2 * TURN_PAGE, count: TURN_PAGE })).turns).toEqual(whole.turns.slice(2 * TURN_PAGE));
  });

  it('answers a short episode whole, without an outline', async () => {
    const dir = tempDir();
    const file = join(dir, 'short.jsonl');
    writeFileSync(file, `${JSON.stringify({ schema: 'routelens/v1', run: 'short', episode_id: 's', outcome: { success: true }, turns: [{ t: 0, model: 'gpt-5', action: { type: 'tool', tool: 'bash' }, cost_usd: 0.1, errors: [] }] })}\n`);
    await importPaths(db, [file]);
    const sid = db.prepare("SELECT id FROM episodes WHERE ext_id = 's'").pluck().get() as number;
    const detail = await api.getEpisode({ id: sid, around: 7 });
    expect({ count: detail.turn_count, from: detail.turns_from, outline: detail.outline, length: detail.turns.length }).toEqual({ count: 1, from: 0, outline: null, length: 1 });
  });
});
