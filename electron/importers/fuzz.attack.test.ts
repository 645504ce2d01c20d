// Property-based fuzzing of every importer (DESIGN §12, issue 8 item 4): mutations of the real samples
// (fuzzing.ts) go through the real import pipeline into a database that already holds data. Each case must
// either import, or be rejected with `<path>:<line>: <reason>` and leave the database exactly as it was; any
// other exception, a polluted prototype, or a case slower than its time box fails. Each case names its importer
// (as `--format` does) so a mutated header still reaches that parser; detection is fuzzed on its own below.
// Seeded and bounded: ROUTELENS_FUZZ_RUNS multiplies the run counts and ROUTELENS_FUZZ_SEED changes the seed for
// a deeper hunt; FUZZ_DEBUG=1 prints every case with its time. A case that hangs inside synchronous code cannot
// be interrupted here; the per-case time check catches the slow-but-finite ones (how the quadratic scan showed).
import { copyFileSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { extname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../db/database.ts';
import type { Db } from '../db/dbHandle.ts';
import { useSuiteTempDir } from '../testing/tmp.ts';
import { byteMutation, jsonMutation, xmlMutation, zipMutation, type Mutation } from './fuzzing.ts';
import { detectImporter, importPaths } from './pipeline.ts';
import { IMPORTERS } from './registry.ts';

const fixtures = fileURLToPath(new URL('../../fixtures/', import.meta.url));
const SEED = Number(process.env.ROUTELENS_FUZZ_SEED ?? 20_260_508);
const SCALE = Number(process.env.ROUTELENS_FUZZ_RUNS ?? 1);
/** One case may take this long (a 3 MB line, a 16 MB zip bomb) before it counts as hung. */
const CASE_BUDGET_MS = 8_000;

const tempDir = useSuiteTempDir();
let dir = '';
let db: Db;
let caseNo = 0;
const counts = { cases: 0, rejected: 0, imported: 0, skipped: 0, detect: 0 };
const perFormat = new Map<string, { cases: number; rejected: number; imported: number }>();

/** Row counts of every table (FTS shadow tables included) and the sources, in a stable order. */
function snapshot(): Record<string, unknown> {
  const tables = db
    .prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND sql NOT LIKE 'CREATE VIRTUAL%' ORDER BY name")
    .pluck()
    .all() as string[];
  const out: Record<string, unknown> = {};
  for (const t of tables) out[t] = db.prepare(`SELECT COUNT(*) FROM "${t}"`).pluck().get();
  out.sources = db.prepare('SELECT content_hash, path, episodes FROM sources ORDER BY id').all();
  out.runs = db.prepare('SELECT name FROM runs ORDER BY id').pluck().all();
  return out;
}

const escapeRe = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

function withTimeout<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: no answer after ${ms} ms (hung?)`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

/** One fuzz case through the pipeline, checked. `format` forces the importer (else detection picks one). */
async function runCase(format: string, ext: string, bytes: Buffer, mutations: readonly Mutation[]): Promise<void> {
  const file = join(dir, `case-${++caseNo}${ext}`);
  writeFileSync(file, bytes);
  const before = snapshot();
  const started = performance.now();
  const what = `${format} ${mutations.map((m) => m.name).join(' + ')}`;
  try {
    const report = await withTimeout(importPaths(db, [file], { format }), CASE_BUDGET_MS * 2, what);
    const elapsed = performance.now() - started;
    expect(elapsed, `${what} took ${elapsed.toFixed(0)} ms`).toBeLessThan(CASE_BUDGET_MS);
    expect(report.files).toHaveLength(1);
    const [result] = report.files;
    const tally = perFormat.get(format) ?? { cases: 0, rejected: 0, imported: 0 };
    perFormat.set(format, tally);
    counts.cases++;
    tally.cases++;
    if (result?.status === 'imported') {
      counts.imported++;
      tally.imported++;
      expect(result.episodes).toBeGreaterThan(0);
    } else {
      // Rejected (or skipped as a copy of something already imported): nothing may have changed.
      if (result?.status === 'rejected') {
        counts.rejected++;
        tally.rejected++;
        // A database has no lines: its faults are reported at line 0.
        const line = format === 'crush' ? '0' : '[1-9]\\d*';
        expect(result.reason, what).toMatch(new RegExp(`^${escapeRe(file)}:${line}: \\S`));
      } else {
        counts.skipped++;
      }
      expect(snapshot(), what).toEqual(before);
    }
    // A `__proto__` key in a log must never reach a prototype.
    expect(({} as Record<string, unknown>).polluted, what).toBeUndefined();
  } finally {
    rmSync(file, { force: true });
  }
}

interface Seed {
  format: string;
  file: string;
  /** Only the first bytes of a big sample, cut at this many bytes (the sample's own session boundary). */
  bytes?: number;
}

const SEEDS: Seed[] = [
  { format: 'canonical', file: 'canonical/example.jsonl' },
  { format: 'mini-swe-agent', file: 'samples/mtrouter/router.traj.json' },
  { format: 'mini-swe-agent', file: 'samples/mtrouter/local.traj.json' },
  { format: 'mini-swe-agent', file: 'samples/mini-swe-agent/trajs/astropy__astropy-7166/astropy__astropy-7166.traj.json' },
  { format: 'swe-agent', file: 'samples/swe-agent/gpt4__swe-agent-test-repo__default_from_url__t-0.00__p-0.95__c-3.00__install-1/6e44b9__sweagenttestrepo-1c2844.traj' },
  { format: 'inspect', file: 'samples/inspect/2025-05-12T20-27-36-04-00_browser.json' },
  { format: 'inspect', file: 'samples/inspect/log_streaming.eval' },
  { format: 'inspect', file: 'samples/inspect/mmlu-summary-choices.eval' },
  { format: 'otel', file: 'samples/otel/genai-attribute-dialects/otel_genai_client_span_tool_calls.json' },
  { format: 'otel', file: 'samples/otel/genai-attribute-dialects/openinference_client_span_tool_calls.json' },
  { format: 'otel', file: 'samples/otel/constructed/otlp-export.jsonl' },
  { format: 'otel', file: 'samples/otel/vercel-ai-sdk-v6/all-spans.json' },
  { format: 'uno', file: 'samples/uno/case1-hyperbola-decomp-repair.xml' },
  { format: 'uno', file: 'samples/uno/case2-git-recovery-oneshot.xml' },
  { format: 'uno', file: 'samples/uno/uno-transcripts.jsonl' },
  { format: 'claude-code', file: 'samples/claude-code/vct-claude_code.jsonl' },
  { format: 'claude-code', file: 'samples/claude-code/spotter/8463c716-a2ea-4c14-9efa-87158ebd9f20/subagents/agent-acompact-f46190.jsonl' },
  { format: 'gemini-cli', file: 'samples/gemini-cli/vct-gemini.jsonl' },
  { format: 'gemini-cli', file: 'samples/gemini-cli/vct-gemini-legacy-2026-03.json' },
  { format: 'codex', file: 'samples/codex/vct-codex.jsonl' },
  { format: 'copilot-cli', file: 'samples/copilot-cli/vct-copilot.jsonl' },
  { format: 'crush', file: 'samples/crush/scn-ts-core/.crush/crush.db' },
  { format: 'cline', file: 'samples/cline/gmfstu-task-1769053680585/ui_messages.json' },
  { format: 'opencode', file: 'samples/opencode/session__hidden-river__ses_39b709b7fffea1aT6PAuEvX6Zq.json' },
  { format: 'openhands', file: 'samples/openhands/basic_gui_mode.json' },
  { format: 'openhands', file: 'samples/openhands/resolver-output.jsonl' },
  { format: 'atif', file: 'samples/atif/openagents-tbench-regex-log/trajectory.json' },
  // The first sessions of the 4 MB history: up to the session that starts at byte 84,731.
  { format: 'aider', file: 'samples/aider/chat-history.md', bytes: 84_731 },
];

/** Keeps the real name's ending: some importers choose by it (`.eval`, `.traj`, `.traj.json`). */
const extOf = (file: string): string => (file.endsWith('.traj.json') ? '.traj.json' : extname(file));

function seedsOf(format: string): { seed: Seed; bytes: Buffer; ext: string }[] {
  return SEEDS.filter((s) => s.format === format).map((seed) => {
    const whole = readFileSync(join(fixtures, seed.file));
    const bytes = seed.bytes === undefined ? whole : whole.subarray(0, seed.bytes);
    return { seed, bytes, ext: extOf(seed.file) };
  });
}

function mutationsFor(format: string, ext: string): fc.Arbitrary<Mutation> {
  if (ext === '.eval') return zipMutation();
  if (format === 'uno') return fc.oneof(xmlMutation(), xmlMutation(), byteMutation(), jsonMutation());
  return fc.oneof(jsonMutation(), jsonMutation(), byteMutation());
}

/** Runs per importer: ~2–4 s each on a busy 2-core machine. */
const RUNS: Record<string, number> = {
  canonical: 120,
  'mini-swe-agent': 120,
  'swe-agent': 100,
  inspect: 70,
  otel: 120,
  uno: 140,
  'claude-code': 80,
  'gemini-cli': 80,
  codex: 80,
  'copilot-cli': 80,
  crush: 60,
  cline: 40,
  opencode: 40,
  openhands: 80,
  atif: 80,
  aider: 60,
};

beforeAll(() => {
  dir = tempDir();
  db = openDatabase(join(dir, 'fuzz.db'));
});

afterAll(() => {
  if (db?.open) {
    db.close();
  }
  const by = [...perFormat].map(([f, t]) => `${f} ${t.cases} (${t.rejected} rejected, ${t.imported} imported)`).join('; ');
  console.log(
    `attack: fuzz ${counts.cases} cases, ${counts.rejected} rejected with path:line, ${counts.imported} imported` +
      `${counts.skipped ? `, ${counts.skipped} skipped as already imported` : ''}; ${counts.detect} detection heads — ${by}`,
  );
});

describe('importer fuzzing', () => {
  it('starts from a database that holds data, so "changes nothing" is a real check', async () => {
    const report = await importPaths(db, [join(fixtures, 'canonical/example.jsonl')]);
    expect(report.files[0]?.status).toBe('imported');
    expect((snapshot().episodes as number) > 0).toBe(true);
  });

  for (const importer of IMPORTERS) {
    it(`${importer.format}: mutated real samples import or are rejected with path:line, changing nothing`, async () => {
      const seeds = seedsOf(importer.format);
      expect(seeds.length).toBeGreaterThan(0);
      // The sample is drawn by name, so a counterexample prints its file, not its bytes.
      const arb = fc.constantFrom(...seeds.map((s) => s.seed.file)).chain((file) =>
        fc.record({
          file: fc.constant(file),
          mutations: fc.array(mutationsFor(importer.format, extOf(file)), { minLength: 1, maxLength: 2 }),
        }),
      );
      await fc.assert(
        fc.asyncProperty(arb, async ({ file, mutations }) => {
          const s = seeds.find((x) => x.seed.file === file) as (typeof seeds)[number];
          const t0 = performance.now();
          const bytes = mutations.reduce((b, m) => m.apply(b), s.bytes);
          const t1 = performance.now();
          await runCase(importer.format, s.ext, bytes, mutations);
          if (process.env.FUZZ_DEBUG) console.log(`${(t1 - t0).toFixed(0)} + ${(performance.now() - t1).toFixed(0)} ms ${mutations.map((m) => m.name).join(' + ')}`);
        }),
        { seed: SEED, numRuns: Math.round((RUNS[importer.format] ?? 100) * SCALE), endOnFailure: true },
      );
    });
  }

  it('auto-detection: random heads and mutated samples never throw, and pick a known importer or none', () => {
    const samples = SEEDS.map((s) => readFileSync(join(fixtures, s.file)));
    fc.assert(
      fc.property(
        fc.oneof(
          fc.uint8Array({ maxLength: 70_000 }).map((b) => Buffer.from(b)),
          fc.tuple(fc.constantFrom(...samples), byteMutation(200_000)).map(([b, m]) => m.apply(b)),
        ),
        fc.constantFrom('x.jsonl', 'x.json', 'x.traj', 'x.traj.json', 'x.eval', 'x.xml', 'x'),
        (bytes, name) => {
          const head = bytes.subarray(0, 64 * 1024).toString('utf8');
          const started = performance.now();
          const found = detectImporter(head, name);
          expect(performance.now() - started).toBeLessThan(500);
          if (found) expect(IMPORTERS).toContain(found);
          counts.detect++;
        },
      ),
      { seed: SEED, numRuns: Math.round(400 * SCALE) },
    );
  });

  it('leaves a database that passes integrity_check and the FTS index check', () => {
    expect(db.pragma('integrity_check', { simple: true })).toBe('ok');
    expect(db.pragma('foreign_key_check')).toEqual([]);
    expect(() => db.exec("INSERT INTO turn_fts(turn_fts) VALUES ('integrity-check')")).not.toThrow();
  });

  it('regression: a file of many short strings parses in linear time (OTel, 2.4 MB of `"` took 18 s)', async () => {
    const sample = readFileSync(join(fixtures, 'samples/otel/genai-attribute-dialects/openinference_client_span_tool_calls.json'));
    const started = performance.now();
    await runCase('otel', '.json', Buffer.concat([Buffer.from('"'.repeat(2_400_000)), sample]), []);
    expect(performance.now() - started).toBeLessThan(2_000);
  });

  it('a line over the 64 MiB limit is refused at its line before it is held whole', async () => {
    const example = readFileSync(join(fixtures, 'canonical/example.jsonl'));
    const firstLine = example.subarray(0, example.indexOf(10) + 1);
    const file = join(dir, 'huge-line.jsonl');
    writeFileSync(file, Buffer.concat([firstLine, Buffer.alloc(65 * 1024 * 1024, 0x61), Buffer.from('\n')]));
    const before = snapshot();
    const report = await importPaths(db, [file], { format: 'canonical' });
    expect(report.files[0]?.reason).toBe(`${file}:2: line longer than ${64 * 1024 * 1024} bytes`);
    expect(snapshot()).toEqual(before);
    rmSync(file);
  });

  it('a copy of an imported sample under another name is skipped, not duplicated', async () => {
    const copy = join(dir, 'copy.jsonl');
    copyFileSync(join(fixtures, 'canonical/example.jsonl'), copy);
    const before = snapshot();
    const report = await importPaths(db, [copy]);
    expect(report.files[0]?.status).toBe('skipped');
    expect(snapshot()).toEqual(before);
  });
});
