import { describe, expect, it } from 'vitest';
import type { PlanDagEpisodeResult } from '../../analysisResults.ts';
import type { Mark, RectMark, TextMark } from '../scene.ts';
import { textWidth } from '../text.ts';
import { LIGHT_THEME } from '../theme.ts';
import { planDagLayout, planRoundLayout } from './planDag.ts';

const flat = (marks: readonly Mark[], dx = 0, dy = 0): Mark[] =>
  marks.flatMap((m) => (m.type === 'group' ? flat(m.marks, dx + (m.x ?? 0), dy + (m.y ?? 0)) : [m.type === 'rect' ? { ...m, x: m.x + dx, y: m.y + dy } : m.type === 'text' ? { ...m, x: m.x + dx, y: m.y + dy } : m]));
const ctx = (width: number) => ({ theme: LIGHT_THEME, width, modelColor: () => '#4477aa' });

const round = {
  round: 2,
  turn: 3,
  nodes: [
    { id: '1', model: 'claude-sonnet-4-5-20250929', primitive: 'parse_structured_document', status: 'ok' },
    { id: '2', model: 'gpt-5', primitive: 'reason', status: 'timeout' },
    { id: '3', model: 'kimi-k2', primitive: 'web_search', status: 'ok' },
  ],
  edges: [['1', '2'], ['1', '3']] as [string, string][],
};
const episode: PlanDagEpisodeResult = { episode: 'uno_agentic_long_context_84_e274', run: 'uno-orchestra (paper cases)', mode: 'decomp_repair', rounds: [round] };

describe('plan DAG labels', () => {
  it('sizes each node to its primitive and model, so neither is cut', () => {
    const marks = flat(planDagLayout(episode, ctx(900)).marks);
    const titles = marks.filter((m): m is TextMark => m.role === 'node-title').map((t) => t.text);
    const models = marks.filter((m): m is TextMark => m.role === 'node-model').map((t) => t.text);
    expect(titles).toEqual(['parse_structured_document', 'reason', 'web_search']);
    expect(models).toEqual(['claude-sonnet-4-5-20250929', 'gpt-5 · timeout', 'kimi-k2']);
    const nodes = marks.filter((m): m is RectMark => m.role === 'node');
    expect(nodes[0]!.width).toBeGreaterThanOrEqual(textWidth('parse_structured_document', LIGHT_THEME.fontSize, true) + 12);
  });

  it('wraps the episode header in a narrow figure instead of cutting it', () => {
    const header = planDagLayout(episode, ctx(360)).marks.filter((m): m is TextMark => m.role === 'header');
    expect(header.length).toBeGreaterThan(1);
    expect(header.map((h) => h.text).join(' ')).toBe(
      'episode uno_agentic_long_context_84_e274 (run uno-orchestra (paper cases)) · behaviour mode: decomp_repair · 1 planned round',
    );
  });

  it('draws one round for the inspector inside its own bounds, wider than asked when the round needs it', () => {
    for (const width of [240, 700]) {
      const scene = planRoundLayout(round, episode.episode, episode.run, ctx(width));
      expect(scene.width).toBeGreaterThanOrEqual(width);
      for (const n of flat(scene.marks).filter((m): m is RectMark => m.role === 'node')) {
        expect(n.x).toBeGreaterThanOrEqual(0);
        expect(n.x + n.width).toBeLessThanOrEqual(scene.width);
        expect(n.y + n.height).toBeLessThanOrEqual(scene.height);
      }
      expect(flat(scene.marks).filter((m) => m.role === 'node-title')).toHaveLength(3);
    }
  });
});
