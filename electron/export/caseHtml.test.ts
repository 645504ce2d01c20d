// A shared case as one HTML file (issue 37): the data the page carries is the case as gathered (round trip through
// gzip and base64), planted secrets are absent from the file's bytes and from the inflated data unless --no-redact,
// hostile log text is only data, huge texts are cut with their count, and the CLI's mistakes are one line, exit 1.
import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { beforeAll, describe, expect, it } from 'vitest';
import { CASE_DATA_ID, type CaseData } from '../../shared/caseFile.ts';
import { main } from '../cli/main.ts';
import { openDatabase } from '../db/database.ts';
import { importPaths } from '../importers/pipeline.ts';
import { createApi, openApiDatabase } from '../services/api.ts';
import { useSuiteTempDir } from '../testing/tmp.ts';
import { gatherCase } from './caseData.ts';
import { caseHtml } from './caseHtml.ts';
import { CUT_OVER } from './textCut.ts';

const tempDir = useSuiteTempDir();

// Invented keys of real shapes, joined at run time so no secret scanner takes this file for a leak.
const SECRETS = {
  openai: ['sk-', 'proj-', 'Qx7Lm2Vb9TzR4kWp1NcY8dHs3JfE6gUa0BiO5qXtZwKe'].join(''),
  aws: ['AKIA', 'QX7LM2VB9TZR4KWP'].join(''),
  pem: ['MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7', 'VJTUt9Us8cKjMzEfYyjiWA4R4'].join(''),
  user: 'alice',
};
const PRIVATE_KEY = `-----BEGIN PRIVATE KEY-----\n${SECRETS.pem}\n-----END PRIVATE KEY-----`;
const HOSTILE = '</script><script>alert(1)</script><!-- <style>body{display:none}</style>';
const HUGE = Array.from({ length: 4000 }, (_, i) => `line ${i} of a tool's huge output`).join('\n');
const planted = Object.values(SECRETS);

let dir: string;
let db: string;

beforeAll(async () => {
  dir = tempDir();
  db = join(dir, 'case.db');
  const line = readFileSync('fixtures/canonical/example.jsonl', 'utf8').split('\n').find(Boolean) as string;
  const ep = JSON.parse(line) as { episode_id: string; task: { text: string }; turns: { observation?: string; action: { text?: string } }[] };
  ep.episode_id = 'planted_0';
  ep.task.text += ` (workspace /home/${SECRETS.user}/tasks)`;
  const [first, second] = ep.turns;
  first!.action.text = 'env; cat ~/.ssh/id_rsa';
  first!.observation = `OPENAI_API_KEY=${SECRETS.openai}\naws_access_key_id = ${SECRETS.aws}\n${PRIVATE_KEY}\n${HOSTILE}`;
  second!.observation = HUGE;
  const file = join(dir, 'planted.jsonl');
  writeFileSync(file, `${JSON.stringify(ep)}\n`);
  const handle = openDatabase(db);
  await importPaths(handle, [file]);
  handle.close();
}, 120_000);

/** The case a file carries, inflated as the page inflates it. */
function caseOf(html: string): { json: string; data: CaseData } {
  const block = new RegExp(`<script type="application/octet-stream" id="${CASE_DATA_ID}">([^<]*)</script>`).exec(html);
  expect(block, 'the file has its data block').not.toBeNull();
  const json = gunzipSync(Buffer.from(block![1] as string, 'base64')).toString('utf8');
  return { json, data: JSON.parse(json) as CaseData };
}

async function routelens(...args: string[]): Promise<{ code: number; stderr: string }> {
  const stderr: string[] = [];
  const write = process.stderr.write.bind(process.stderr);
  process.stderr.write = ((chunk: string) => (stderr.push(String(chunk)), true)) as typeof process.stderr.write;
  try {
    return { code: await main(args), stderr: stderr.join('') };
  } finally {
    process.stderr.write = write;
  }
}

describe('caseHtml', () => {
  it('carries the case as gathered, redacted, with hostile text as data only and huge texts cut', async () => {
    const handle = openApiDatabase(db);
    try {
      const api = createApi(handle, ':memory:');
      const id = (await api.getEpisode({ ext_id: 'planted_0' })).episode.id;
      const data = await gatherCase(api, { episode: id }, { redact: true, version: '9.9.9', database: db, now: new Date('2026-11-29T12:00:00Z') });
      const viewer = { js: 'document.title = "</script>"; /* <!-- */', css: 'body { color: red }' };
      const html = caseHtml(data, viewer);

      expect(caseOf(html).data).toEqual(data);
      for (const secret of planted) {
        expect(html).not.toContain(secret);
        expect(caseOf(html).json).not.toContain(secret);
      }
      expect(data.about.redaction.counts).toMatchObject({ 'openai-key': 1, 'aws-key': 1, 'private-key': 1, 'home-user': 1 });

      // The log's text is only in the base64 block: two script elements in all (the data, the viewer), no alert.
      expect(html.match(/<script/gi)).toHaveLength(2);
      expect(html).not.toContain('alert(1)');
      expect(caseOf(html).json).toContain(JSON.stringify(HOSTILE).slice(1, -1));
      // The viewer's own `</script` and `<!--` cannot end or bend its block.
      expect(html).toContain('document.title = "\\x3C/script>"; /* \\x3C!-- */');

      // The CSP allows exactly the inline script and style as written, and nothing remote.
      const csp = /http-equiv="Content-Security-Policy" content="([^"]*)"/.exec(html)?.[1] ?? '';
      const inline = /<script>([\s\S]*)<\/script>\n<\/body>/.exec(html)?.[1] ?? '';
      expect(csp).toContain("default-src 'none'");
      expect(csp).toContain("connect-src 'none'");
      expect(csp).toContain('img-src data:');
      expect(csp).toContain(`script-src 'sha256-${createHash('sha256').update(inline).digest('base64')}'`);
      expect(csp).not.toContain('unsafe-inline');

      // The huge output keeps its head and tail and says what went, in the text and in the footer's counts.
      const turn = data.episodes[0]!.turns[1]!;
      expect(turn.observation!.length).toBeLessThan(CUT_OVER);
      expect(turn.observation).toContain('line 0 of');
      expect(turn.observation).toContain('line 3999 of');
      expect(turn.observation).toMatch(/\[… [\d,]+ characters \([\d,]+ lines\) cut here when this case was shared/);
      expect(data.about.cut.texts).toBeGreaterThanOrEqual(1);
    } finally {
      handle.close();
    }
  });
});

describe('routelens export-html', () => {
  it('redacts by default and says what; --no-redact keeps the log text', async () => {
    const redacted = join(dir, 'redacted.html');
    const r = await routelens('export-html', '--db', db, '--episode', 'planted_0', '--out', redacted);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/redacted: .*OpenAI key/);
    expect(r.stderr).toMatch(/wrote .*redacted\.html \([\d,]+ bytes\)/);
    for (const secret of planted) expect(caseOf(readFileSync(redacted, 'utf8')).json).not.toContain(secret);

    const plain = join(dir, 'plain.html');
    const p = await routelens('export-html', '--db', db, '--episode', 'planted_0', '--out', plain, '--no-redact');
    expect(p.code, p.stderr).toBe(0);
    const { json } = caseOf(readFileSync(plain, 'utf8'));
    for (const secret of planted) expect(json).toContain(secret);
  });

  it('tells each mistake in one line with exit 1', async () => {
    const out = join(dir, 'x.html');
    const mistakes: [string[], RegExp][] = [
      [['--episode', 'no-such-episode', '--out', out], /no episode "no-such-episode"/],
      [['--run', 'no-such-run', '--out', out], /no run "no-such-run"/],
      [['--episode', 'planted_0'], /--out FILE\.html is required/],
      [['--episode', 'planted_0', '--out', out, '--redact', '(unclosed'], /--redact "\(unclosed": not a valid regular expression/],
      [['--compare', 'only-one', '--out', out], /--compare takes two run names/],
      [['--out', out], /name what to share/],
      [['--episode', 'planted_0', '--out', join(dir, 'no-such-folder', 'x.html')], /cannot write .*no-such-folder.*ENOENT/],
    ];
    for (const [args, message] of mistakes) {
      const r = await routelens('export-html', '--db', db, ...args);
      expect(r.code, args.join(' ')).toBe(1);
      expect(r.stderr).toMatch(message);
      expect(r.stderr.trim().split('\n'), r.stderr).toHaveLength(1);
    }
  });
});
