// The CLI as a user runs it: a child process, real files, exit codes, stdout JSON and stderr messages.
import { copyFileSync, existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT as root, runCli } from '../testing/cliChild.ts';
import { useSuiteTempDir } from '../testing/tmp.ts';

const example = join(root, 'fixtures', 'canonical', 'example.jsonl');
const tempDir = useSuiteTempDir();

function routelens(...args: string[]) {
  return runCli(args);
}

describe('routelens CLI', () => {
  const dir = tempDir();
  const db = join(dir, 'cli.db');

  it('imports, then prints info as JSON', () => {
    const imp = routelens('import', example, '--db', db);
    expect(imp.code, imp.stderr).toBe(0);
    expect(imp.stderr).toMatch(/1 imported, 0 skipped, 0 rejected/);
    const info = routelens('info', '--db', db, '--json');
    expect(info.code).toBe(0);
    const parsed = JSON.parse(info.stdout);
    expect(parsed.runs).toHaveLength(2);
    expect(Object.keys(parsed.runs[0]).sort()).toEqual([
      'child_episodes', 'cost_sources', 'episodes', 'format', 'known_cost', 'log_totals', 'models', 'name', 'splits', 'success_rate', 'total_cost',
      'turns', 'unknown_outcome', 'unpriced_episodes', 'unpriced_turns',
    ]);
    expect(parsed.runs[0]).toMatchObject({ name: 'hle-router-demo', format: 'canonical', episodes: 7, turns: 51, splits: { test: 7 } });
  });

  it("says per run whether the logs' own totals reconcile, and where each turn's cost came from", () => {
    const samples = join(root, 'fixtures', 'samples', 'canonical');
    const totals = join(dir, 'totals.db');
    const imp = routelens('import', join(samples, 'log-totals-agree.jsonl'), example, '--db', totals, '--json');
    expect(imp.code, imp.stderr).toBe(0);
    // The same episode with a call lost (a run of its own).
    expect(routelens('import', join(samples, 'log-totals-differ.jsonl'), '--db', totals).code).toBe(0);
    const info = routelens('info', '--db', totals, '--json');
    expect(info.code, info.stderr).toBe(0);
    const runs = new Map((JSON.parse(info.stdout).runs as { name: string }[]).map((r) => [r.name, r]));
    expect(runs.get('codex-vct')).toMatchObject({
      log_totals: { status: 'reconciled', episodes_with_totals: 1, episodes_differing: 0, episodes_not_comparable: 0, worst_rel: null, log_cost: null, counted_cost: null },
      // aide-gpt-5 is a custom provider's alias: no price, so its cost is unknown and said to be.
      cost_sources: [{ source: 'none', provenance: null, turns: 19 }],
    });
    expect(runs.get('mini-swe-agent-gemini-3-pro')).toMatchObject({
      log_totals: { status: 'reconciled', episodes_with_totals: 1, log_cost: expect.closeTo(0.0893484, 9), counted_cost: expect.closeTo(0.0893484, 9) },
      cost_sources: [{ source: 'logged', provenance: null, turns: 17 }],
    });
    expect(runs.get('mini-swe-agent-lost-call')).toMatchObject({
      log_totals: {
        status: 'differs', episodes_with_totals: 1, episodes_differing: 1, worst_rel: expect.closeTo(1 / 17, 9),
        log_cost: expect.closeTo(0.0893484, 9), counted_cost: expect.closeTo(0.0858016, 9),
      },
    });
    // The simulator's demo runs carry no totals of their own, and their tokens are priced from the pool.
    expect(runs.get('hle-router-demo')).toMatchObject({ log_totals: { status: 'no totals in the log', episodes_with_totals: 0 } });
    const text = routelens('info', '--db', totals);
    expect(text.stdout).toContain('  log totals: differ in 1 of 1 episode (up to 5.9%): log $0.0893, turns $0.0858');
    expect(text.stdout).toContain('  log totals: none in the log');
  });

  it('prints the AEC targets of an episode as JSON', () => {
    const r = routelens('analyze', 'targets', '--db', db, '--episode', 'handworked', '--json');
    expect(r.code, r.stderr).toBe(0);
    const parsed = JSON.parse(r.stdout);
    expect(parsed.episode).toBe('handworked');
    expect(parsed.turns[1]).toEqual({ t: 1, s_tilde: expect.closeTo(0.758, 10), penalty: expect.closeTo(0.03, 10), errors: ['python_traceback'] });
    // most severe first
    expect(parsed.turns[4].errors).toEqual(['tool_invalid_args', 'format_error']);
  });

  it('rejects a bad file with path:line and exit code 1, importing nothing of it', () => {
    const bad = join(root, 'fixtures', 'broken', 'canonical-wrong-type.jsonl');
    const fresh = join(dir, 'bad.db');
    const r = routelens('import', bad, '--db', fresh);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/canonical-wrong-type\.jsonl:3: turns\[2\]\.tokens\.in/);
    expect(JSON.parse(routelens('info', '--db', fresh, '--json').stdout).runs).toEqual([]);
  });

  it('lists the files of a folder it did not read: 20 and a summary, all with --verbose or --json', () => {
    const folder = join(dir, 'many');
    mkdirSync(folder, { recursive: true });
    copyFileSync(example, join(folder, 'run.jsonl'));
    for (let i = 0; i < 25; i++) writeFileSync(join(folder, `note-${String(i).padStart(2, '0')}.txt`), 'a note');
    writeFileSync(join(folder, 'script.py'), 'print(1)');
    const fresh = join(dir, 'many.db');
    const r = routelens('import', folder, '--db', fresh);
    expect(r.code, r.stderr).toBe(0);
    const listed = r.stderr.split('\n').filter((l) => l.startsWith('ignored   /'));
    expect(listed).toHaveLength(20);
    expect(listed[0]).toBe(`ignored   ${join(folder, 'note-00.txt')}: not a log: plain text`);
    expect(r.stderr).toContain('ignored   … and 6 more (6 not a log); --verbose lists them all');
    expect(r.stderr).toMatch(/1 imported, 0 skipped, 0 rejected, 26 other files ignored/);
    const again = routelens('import', folder, '--db', join(dir, 'many2.db'), '--verbose');
    expect(again.stderr.split('\n').filter((l) => l.startsWith('ignored   /'))).toHaveLength(26);
    expect(again.stderr).toContain(`ignored   ${join(folder, 'script.py')}: not a log: Python source`);
    const json = routelens('import', folder, '--db', join(dir, 'many3.db'), '--json');
    expect(JSON.parse(json.stdout).ignored).toHaveLength(26);
  });

  it('skips a file imported before (same content under another name)', () => {
    const copy = join(dir, 'copy.jsonl');
    copyFileSync(example, copy);
    const r = routelens('import', copy, '--db', db);
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(/skipped .*already imported/);
  });

  it('says what is wrong for user errors, without a stack trace', () => {
    const missing = routelens('info', '--db', join(dir, 'nope.db'), '--json');
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/no such database/);
    expect(existsSync(join(dir, 'nope.db'))).toBe(false);
    const unknownEp = routelens('analyze', 'targets', '--db', db, '--episode', 'zzz');
    expect(unknownEp.code).toBe(1);
    expect(unknownEp.stderr).not.toMatch(/\n\s+at /);
    expect(routelens('frobnicate').code).toBe(1);
    expect(routelens('import', '--db', db, '--bogus').code).toBe(1);
  });

  it('has --help for every command', () => {
    for (const cmd of ['import', 'info', 'analyze', 'serve', 'demo']) {
      const r = routelens(cmd, '--help');
      expect(r.code).toBe(0);
      expect(r.stdout).toMatch(/usage: routelens /);
    }
  });

  it('answers `help COMMAND` as `COMMAND --help`: the form npx hands to us whatever its version (issue 38 item 7)', () => {
    const viaHelp = routelens('help', 'import');
    expect(viaHelp.code).toBe(0);
    expect(viaHelp.stdout).toBe(routelens('import', '--help').stdout);
    expect(routelens('help').stdout).toMatch(/routelens help COMMAND/);
    const unknown = routelens('help', 'frobnicate');
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toMatch(/unknown command "frobnicate"/);
    // A command named like an Object method is as unknown as any other (it was exit 2: command.run is not a function).
    for (const args of [['constructor'], ['help', 'toString']]) {
      const r = routelens(...args);
      expect(r.code, r.stderr).toBe(1);
      expect(r.stderr).toMatch(/unknown command/);
    }
  });
});

describe('routelens analyze lift / error-recovery', () => {
  const dir = tempDir();
  const db = join(dir, 'a.db');
  it('prints the documented JSON shapes', () => {
    expect(routelens('import', example, '--db', db).code).toBe(0);
    const lift = routelens('analyze', 'lift', '--db', db, '--run', 'sw-router-demo', '--min-n', '2', '--json');
    expect(lift.code, lift.stderr).toBe(0);
    const cells = JSON.parse(lift.stdout).cells;
    expect(cells.length).toBeGreaterThan(0);
    expect(Object.keys(cells[0]).sort()).toEqual(['category', 'ci', 'lift', 'model', 'n']);
    const rec = routelens('analyze', 'error-recovery', '--db', db, '--run', 'sw-router-demo', '--run', 'hle-router-demo', '--json');
    expect(rec.code, rec.stderr).toBe(0);
    const groups = JSON.parse(rec.stdout).groups;
    expect(groups.map((g: { run: string }) => g.run)).toEqual(['hle-router-demo', 'sw-router-demo']);
    for (const k of ['run', 'n', 'p_switch', 'p_recover', 'p_recover_stay', 'p_recover_switch', 'ci']) expect(groups[0]).toHaveProperty(k);
    for (const [name, key] of [['usage-by-turn', 'runs'], ['switch-cost', 'runs'], ['pareto', 'points'], ['usage-ratio', 'runs']] as const) {
      const r = routelens('analyze', name, '--db', db, '--json');
      expect(r.code, r.stderr).toBe(0);
      expect(JSON.parse(r.stdout)[key].length).toBeGreaterThan(0);
    }
    const confusion = JSON.parse(routelens('analyze', 'confusion', '--db', db, '--json').stdout);
    expect(confusion).toEqual({ routing: [], verification: expect.objectContaining({ stop_correct: 0 }) }); // no difficulty or verdicts here
    expect(routelens('analyze', 'usage-ratio', '--db', db, '--rho', 'gpt-5=2').code).toBe(1);
    const bad = routelens('analyze', 'lift', '--db', db, '--run', 'nope');
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/no run named "nope"/);
  });
});

describe('the command table', () => {
  it('lists the analyses analyze and export take, as their modules know them', async () => {
    const { COMMANDS } = await import('./main.ts');
    const { ANALYSIS_IDS } = await import('../../shared/analysisResults.ts');
    const { PUSHED_DOWN } = await import('./analyzeOnStore.ts');
    expect(COMMANDS.export?.summary).toBe(`write an analysis figure as SVG, PNG, PDF or its data as CSV: ${ANALYSIS_IDS.join(', ')}`);
    expect(COMMANDS.analyze?.summary.replace('run an analysis: ', '').split(', ').sort()).toEqual([...PUSHED_DOWN].sort());
  });

  it('loads each command module, and each has its usage', async () => {
    const { COMMANDS } = await import('./main.ts');
    for (const [name, entry] of Object.entries(COMMANDS)) {
      const { command } = await entry.load();
      expect(command.usage, name).toMatch(new RegExp(`^routelens ${name} `));
    }
  });
});
