// Exported figures from hostile logs (DESIGN §12, issue 8 item 5): simulated runs whose run, model and tool
// names carry markup and script go through the real import, every analysis, and `exportFigure` as SVG. Each
// file is parsed as XML: no script, foreignObject, iframe or link elements, no on* attributes, no href, no
// javascript: anywhere in an attribute, and the hostile names are there as text (escaped, read back verbatim).
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { SaxesParser } from 'saxes';
import { beforeAll, describe, expect, it } from 'vitest';
import { ANALYSIS_IDS, type AnalysisId } from '../../shared/analysisResults.ts';
import type { CanonicalEpisode } from '../../shared/canonical.ts';
import { simulate, type PresetName } from '../../fixtures/simulator/index.ts';
import { openDatabase } from '../db/database.ts';
import type { Db } from '../db/dbHandle.ts';
import { importPaths } from '../importers/pipeline.ts';
import { createApi } from '../services/api.ts';
import { dispatch } from '../services/dispatch.ts';
import { useSuiteTempDir } from '../testing/tmp.ts';

const tempDir = useSuiteTempDir();
let db: Db;
let api: ReturnType<typeof createApi>;
const episodeOf: Partial<Record<AnalysisId, string>> = {};

const MODEL_TAIL = '<img src=x onerror=alert(1)>';
const RUN_HEAD = '"><script>alert(2)</script>';
const TOOL_TAIL = '<svg onload=alert(3)>';

function hostile(ep: CanonicalEpisode): CanonicalEpisode {
  const model = (m: string): string => `${m}${MODEL_TAIL}`;
  return {
    ...ep,
    run: `${RUN_HEAD}${ep.run} javascript:alert(4)`,
    turns: ep.turns.map((t) => ({
      ...t,
      model: model(t.model),
      action: { ...t.action, tool: t.action.tool ? `${t.action.tool}${TOOL_TAIL}` : t.action.tool },
      candidates: t.candidates ? Object.fromEntries(Object.entries(t.candidates).map(([k, v]) => [model(k), v])) : t.candidates,
      plan: t.plan ? { ...t.plan, subtasks: t.plan.subtasks.map((s) => ({ ...s, model: s.model ? model(s.model) : s.model })) } : t.plan,
    })),
  };
}

interface SvgFindings {
  elements: Set<string>;
  badAttributes: string[];
  text: string;
  /** data-series values, as a parser reads them. */
  series: string[];
}

function inspectSvg(svg: string): SvgFindings {
  const parser = new SaxesParser({ xmlns: false });
  const found: SvgFindings = { elements: new Set(), badAttributes: [], text: '', series: [] };
  parser.on('opentag', (tag) => {
    found.elements.add(tag.name.toLowerCase());
    for (const [name, value] of Object.entries(tag.attributes)) {
      const v = String(value);
      if (name === 'data-series') found.series.push(v);
      // A data-* attribute is never read as a URL, script or style: data-series holds a run or model name as logged.
      const inert = /^data-/i.test(name);
      if (/^on/i.test(name) || /href$/i.test(name) || (!inert && (/javascript:/i.test(v) || /url\(/i.test(v)))) found.badAttributes.push(`${tag.name} ${name}="${v}"`);
    }
  });
  parser.on('text', (t) => (found.text += t));
  parser.on('doctype', () => found.badAttributes.push('DOCTYPE'));
  parser.write(svg).close();
  return found;
}

beforeAll(async () => {
  const dir = tempDir();
  const file = join(dir, 'hostile-runs.jsonl');
  const presets: [PresetName, number][] = [['swe', 60], ['uno', 30], ['corl', 40], ['critique', 40]];
  const lines: string[] = [];
  for (const [preset, episodes] of presets) {
    for (const ep of simulate({ preset, episodes, seed: 5 })) lines.push(JSON.stringify(hostile(ep)));
  }
  writeFileSync(file, `${lines.join('\n')}\n`);
  db = openDatabase(join(dir, 'h.db'));
  const report = await importPaths(db, [file]);
  expect(report.files[0]?.status, report.files[0]?.reason).toBe('imported');
  api = createApi(db);
  const pick = (sql: string): string | undefined => db.prepare(sql).pluck().get() as string | undefined;
  episodeOf.targets = pick('SELECT ext_id FROM episodes ORDER BY n_errors DESC, id LIMIT 1');
  episodeOf['plan-dag'] = pick('SELECT e.ext_id FROM episodes e WHERE EXISTS (SELECT 1 FROM plan_nodes p WHERE p.episode_id = e.id) LIMIT 1');
  // The sample file itself must carry the markup the checks look for.
  expect(readFileSync(file, 'utf8')).toContain(MODEL_TAIL.replace(/"/g, '\\"'));
}, 120_000);

describe('exported SVG from hostile names', () => {
  it('every analysis exports an SVG with the names as text and nothing active', async () => {
    const exported: string[] = [];
    let showingNames = 0;
    for (const id of ANALYSIS_IDS) {
      for (const episode of id === 'plan-dag' ? [undefined, episodeOf[id]] : [episodeOf[id]]) {
        const result = await dispatch(api, 'exportFigure', { request: { id, ...(episode ? { episode } : {}) }, format: 'svg' });
        // An analysis with nothing to show on this data says so as an input / not-found error; that is not our concern here.
        if (!result.ok) {
          expect(result.error.kind, `${id}: ${result.error.message}`).not.toBe('internal');
          continue;
        }
        const { data_base64, filename } = result.value as { data_base64: string; filename: string };
        expect(filename).toMatch(/^[A-Za-z0-9._-]+\.svg$/);
        const svg = Buffer.from(data_base64, 'base64').toString('utf8');
        const found = inspectSvg(svg);
        for (const banned of ['script', 'foreignobject', 'iframe', 'a', 'image', 'use', 'style', 'object', 'embed']) {
          expect(found.elements.has(banned), `${id}: <${banned}>`).toBe(false);
        }
        expect(found.badAttributes, id).toEqual([]);
        // The run or model a mark draws is named on it, escaped: a parser reads the name back whole.
        const names = new Set(db.prepare('SELECT name FROM runs UNION SELECT name FROM models').pluck().all() as string[]);
        // Or a pooled series ("all selected runs").
        for (const series of found.series) expect(names.has(series) || /^(all|the) selected runs/.test(series), `${id}: ${series}`).toBe(true);
        // Raw text check too: the markup of the names appears only escaped (`onerror=` and `javascript:` do occur,
        // as the text they are; the parsed attributes above are where they would be active).
        expect(svg, id).not.toMatch(/<(script|img|svg onload)/i);
        exported.push(id);
        // The hostile names that the figure shows come back verbatim as text.
        if (found.text.includes('onerror')) {
          expect(found.text).toContain(MODEL_TAIL);
          showingNames++;
        }
        if (found.text.includes('alert(2)')) expect(found.text).toContain(RUN_HEAD);
      }
    }
    // Most analyses apply to this data; each exported file was checked above.
    expect(new Set(exported).size).toBeGreaterThanOrEqual(6);
    expect(showingNames).toBeGreaterThanOrEqual(3);
    console.log(`hostile export: ${exported.length} SVG figures checked (${[...new Set(exported)].join(', ')})`);
  });

  it('the CSV export quotes hostile names instead of letting them start a formula or break a row', async () => {
    const result = await dispatch(api, 'exportFigure', { request: { id: 'usage-by-turn' }, format: 'csv' });
    if (!result.ok) throw new Error(result.error.message);
    const csv = Buffer.from((result.value as { data_base64: string }).data_base64, 'base64').toString('utf8');
    expect(csv).toContain('onerror');
    for (const line of csv.split('\n')) expect(line).not.toMatch(/^[=+\-@]/);
  });
});
