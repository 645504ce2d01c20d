/**
 * The pieces a threaded import cuts a file into: whole lines, the whole file, and the same numbered lines as the
 * line reader the importers use (lineReader.ts), whatever the line lengths; and the thread count's setting.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { linesOf, readLines } from '../../../importers/lineReader.ts';
import { ImportError } from '../../../importers/types.ts';
import { importThreadsFromEnvironment, piecesOf } from './threadedFile.ts';

const dir = mkdtempSync(join(tmpdir(), 'routelens-pieces-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function collect<T>(it: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const x of it) out.push(x);
  return out;
}

/** The lines of every piece, numbered across the file as the main thread numbers them (lines before the piece). */
function linesOfPieces(pieces: Uint8Array[], file: string, max: number): { lineNo: number; text: string }[] {
  const out: { lineNo: number; text: string }[] = [];
  let before = 0;
  pieces.forEach((p, i) => {
    let last = 0;
    try {
      for (const l of linesOf(p, file, i === 0, max)) {
        out.push({ lineNo: before + l.lineNo, text: l.text });
        last = l.lineNo;
      }
    } catch (e) {
      if (!(e instanceof ImportError)) throw e;
      throw new ImportError(e.file, before + e.line, e.reason);
    }
    before += last;
  });
  return out;
}

describe('piecesOf', () => {
  it('cuts any file into whole lines that number and read as the line reader reads them', async () => {
    let n = 0;
    await fc.assert(fc.asyncProperty(
      fc.array(fc.oneof(fc.string({ maxLength: 3 }), fc.string({ minLength: 20, maxLength: 90 }), fc.constant(''), fc.constant('\r')), { maxLength: 30 }),
      fc.boolean(), fc.boolean(), fc.integer({ min: 1, max: 40 }),
      async (lines, bom, trailing, pieceBytes) => {
        const text = `${bom ? '\uFEFF' : ''}${lines.map((l) => l.replaceAll('\n', ' ')).join('\n')}${trailing ? '\n' : ''}`;
        const file = join(dir, `f${n++}.jsonl`);
        writeFileSync(file, text);
        const pieces = await collect(piecesOf(file, pieceBytes, 1000));
        expect(Buffer.concat(pieces).toString('utf8')).toBe(text);
        for (const p of pieces.slice(0, -1)) expect(p[p.length - 1]).toBe(10);
        expect(linesOfPieces(pieces, file, 1000)).toEqual(await collect(readLines(file, { maxLineBytes: 1000 })));
      },
    ), { numRuns: 200, seed: 19 });
  });

  it('a line longer than the limit ends the pieces and is refused at its line, as the line reader refuses it', async () => {
    const file = join(dir, 'long.jsonl');
    writeFileSync(file, ['{"a":1}', '{"b":2}', 'x'.repeat(5000), '{"c":3}'].join('\n'));
    const pieces = await collect(piecesOf(file, 64, 1000));
    expect(() => linesOfPieces(pieces, file, 1000)).toThrow(`${file}:3: line longer than 1000 bytes`);
    await expect(collect(readLines(file, { maxLineBytes: 1000 }))).rejects.toThrow(`${file}:3: line longer than 1000 bytes`);
  });

  it('invalid UTF-8 is refused at its line', async () => {
    const file = join(dir, 'bytes.jsonl');
    writeFileSync(file, Buffer.concat([Buffer.from('{"a":1}\n{"b":2}\n'), Buffer.from([0xc3, 0x28, 0x0a]), Buffer.from('{"c":3}\n')]));
    const pieces = await collect(piecesOf(file, 8, 1000));
    expect(() => linesOfPieces(pieces, file, 1000)).toThrow(`${file}:3: not valid UTF-8`);
  });
});

describe('ROUTELENS_IMPORT_THREADS', () => {
  it('takes a whole number of threads; anything else is one line saying what to give', () => {
    expect(importThreadsFromEnvironment({ ROUTELENS_IMPORT_THREADS: '3' })).toBe(3);
    expect(importThreadsFromEnvironment({})).toBeGreaterThanOrEqual(1);
    for (const bad of ['0', '-1', '1.5', 'two', '65']) {
      expect(() => importThreadsFromEnvironment({ ROUTELENS_IMPORT_THREADS: bad })).toThrow(`ROUTELENS_IMPORT_THREADS is "${bad}": give a whole number of threads, 1 to 64`);
    }
  });
});
