// Issue 38 item 7: a log saved as UTF-16 was "not a log RouteLens reads" (or, in a folder, silently ignored);
// now it is told what it is. The files are real samples re-encoded as Windows tools write them: PowerShell 5's
// `>` and Out-File (UTF-16LE with a byte order mark, CRLF line ends) and iconv -t UTF-16BE (no mark).
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { openDatabase } from '../db/database.ts';
import { useTempDir } from '../testing/tmp.ts';
import { importPaths } from './pipeline.ts';
import { utf16Head } from './textEncoding.ts';

const fixtures = fileURLToPath(new URL('../../fixtures/', import.meta.url));
const claudeCode = join(fixtures, 'samples/claude-code/vct-claude_code.jsonl');
const canonical = join(fixtures, 'canonical/example.jsonl');
const crush = join(fixtures, 'samples/crush/scn-ts-core/.crush/crush.db');
const inspectEval = join(fixtures, 'samples/inspect/mmlu-summary-choices.eval');
const tempDir = useTempDir();

/** As PowerShell 5 writes it: a byte order mark, then UTF-16LE with CRLF line ends. */
const powerShell = (text: string): Buffer => Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(text.replace(/\n/g, '\r\n'), 'utf16le')]);
/** As iconv -t UTF-16BE writes it: no mark. */
const bigEndian = (text: string): Buffer => Buffer.from(text, 'utf16le').swap16();

describe('UTF-16 logs', () => {
  it('are rejected as UTF-16, named or found in a folder, with or without a byte order mark', async () => {
    const dir = tempDir();
    const le = join(dir, 'session.jsonl');
    writeFileSync(le, powerShell(readFileSync(claudeCode, 'utf8')));
    const be = join(dir, 'runs', 'example.jsonl');
    mkdirSync(join(dir, 'runs'));
    writeFileSync(be, bigEndian(readFileSync(canonical, 'utf8')));
    writeFileSync(join(dir, 'runs', 'notes.txt'), powerShell('shopping list\nmilk\n'));
    const db = openDatabase(join(dir, 'u.db'));
    const named = await importPaths(db, [le, be]);
    expect(named.files.map((f) => [f.status, f.reason])).toEqual([
      ['rejected', `${le}:1: UTF-16 text: save it as UTF-8`],
      ['rejected', `${be}:1: UTF-16 text: save it as UTF-8`],
    ]);
    const folder = await importPaths(db, [join(dir, 'runs')]);
    expect(folder.files.map((f) => [f.status, f.reason])).toEqual([['rejected', `${be}:1: UTF-16 text: save it as UTF-8`]]);
    // Text that is no log stays ignored, said to be UTF-16.
    expect(folder.ignored).toEqual([{ path: join(dir, 'runs', 'notes.txt'), reason: 'UTF-16 text, and not a log RouteLens reads once decoded' }]);
    // A format forced on it says the same.
    expect((await importPaths(db, [le], { format: 'claude-code' })).files[0]?.reason).toBe(`${le}:1: UTF-16 text: save it as UTF-8`);
    expect(db.prepare('SELECT COUNT(*) FROM episodes').pluck().get()).toBe(0);
    db.close();
  });

  it('is told from binary logs and from UTF-8 text', async () => {
    expect(utf16Head(readFileSync(claudeCode))).toBeNull();
    expect(utf16Head(Buffer.from('{"a":"\u00e9\u4e2d"}\n'))).toBeNull();
    expect(utf16Head(bigEndian('{"run":"x"}'))).toEqual({ encoding: 'utf-16be', bom: false });
    expect(utf16Head(Buffer.from('{"run":"x"}', 'utf16le'))).toEqual({ encoding: 'utf-16le', bom: false });
    // Binary logs (SQLite, zip: NUL bytes everywhere) are no UTF-16, and still import.
    expect(utf16Head(readFileSync(crush))).toBeNull();
    expect(utf16Head(readFileSync(inspectEval))).toBeNull();
    const db = openDatabase(join(tempDir(), 'b.db'));
    expect((await importPaths(db, [inspectEval])).files.map((f) => f.status)).toEqual(['imported']);
    db.close();
  });
});
