// `routelens watch` as a user runs it: a mistake is one line and exit 1; a running watcher says each change in a line
// (session, model, calls added, cost so far), an alert once, and Ctrl-C stops it with exit 0 and the database whole.
import { spawn } from 'node:child_process';
import { appendFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openDatabase } from '../db/database.ts';
import { CLI_BIN, REPO_ROOT, runCli } from '../testing/cliChild.ts';
import { useTempDir } from '../testing/tmp.ts';

const tempDir = useTempDir();
const SESSION = '8463c716-a2ea-4c14-9efa-87158ebd9f20';

describe('routelens watch', () => {
  it('refuses a wrong alert rule, a missing folder and a bad --poll in one line each, exit 1', () => {
    const db = join(tempDir(), 'w.db');
    for (const [args, said] of [
      [['watch', tempDir(), '--db', db, '--alert', 'rate>5/x'], /^routelens watch: rule "rate>5\/x": column 8: /],
      [['watch', join(tempDir(), 'nowhere'), '--db', db], /nowhere: no such file or folder/],
      [['watch', tempDir(), '--db', db, '--poll', 'soon'], /--poll must be a number of seconds/],
    ] as const) {
      const r = runCli([...args]);
      expect(r.code).toBe(1);
      expect(r.stderr.trim().split('\n')).toHaveLength(1);
      expect(r.stderr).toMatch(said);
    }
  });

  it('says each change with its cost so far, fires an alert once, and stops on Ctrl-C with exit 0', async () => {
    const base = tempDir();
    const dir = join(base, 'projects', 'app');
    mkdirSync(dir, { recursive: true });
    const db = join(base, 'w.db');
    const lines = readFileSync(join(REPO_ROOT, 'fixtures/samples/claude-code/spotter', `${SESSION}.jsonl`), 'utf8').split('\n');
    const file = join(dir, `${SESSION}.jsonl`);
    writeFileSync(file, `${lines.slice(0, 100).join('\n')}\n`);
    const child = spawn(process.execPath, [CLI_BIN, 'watch', join(base, 'projects'), '--db', db, '--alert', 'calls>20'], { cwd: REPO_ROOT });
    let stderr = '';
    const saw = (re: RegExp): Promise<void> => new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`not seen: ${re}\n${stderr}`)), 30_000);
      const check = (): void => {
        if (re.test(stderr)) {
          clearTimeout(timer);
          resolve();
        } else setTimeout(check, 50);
      };
      check();
    });
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const exited = new Promise<number | null>((r) => child.on('exit', (code) => r(code)));
    await saw(/^following .*: 1 log files, 1 episode\(s\) imported or updated on start/m);
    appendFileSync(file, `${lines.slice(100, 1000).join('\n')}\n`);
    await saw(/claude-code\/app {2}8463c716-a2ea-4c14-9efa-87158ebd9f20 {2}claude-opus-4-6 {2}\+\d+ calls \(\d+ in all\) {2}\$\d+\.\d+ so far/);
    await saw(/^alert: claude-code\/app 8463c716-a2ea-4c14-9efa-87158ebd9f20: .*calls>20/m);
    appendFileSync(file, `${lines.slice(1000).join('\n')}`);
    await new Promise((r) => setTimeout(r, 500));
    child.kill('SIGINT');
    expect(await exited).toBe(0);
    expect(stderr).toMatch(/stopped: \d+ call\(s\) added/);
    expect(stderr.match(/^alert:/gm)).toHaveLength(1);
    const check = openDatabase(db, { readonly: true });
    expect(check.prepare('SELECT count(*) FROM alerts').pluck().get()).toBe(1);
    check.close();
  }, 60_000);
});
