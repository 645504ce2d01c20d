import { describe, expect, it } from 'vitest';
import { TsvBatch } from './tsvBatch.ts';

describe('TsvBatch', () => {
  it('holds every line in order as UTF-8, across chunks and lines longer than a chunk, and empties on take', () => {
    const batch = new TsvBatch();
    const lines = Array.from({ length: 30_000 }, (_v, i) => `${i}\t${'é🙂x'.repeat(i % 50)}\n`);
    lines.splice(1000, 0, `big\t${'ü'.repeat(900_000)}\n`);
    for (const l of lines) batch.add(l);
    const expected = Buffer.from(lines.join(''), 'utf8');
    expect(batch.rows).toBe(lines.length);
    expect(batch.bytes).toBe(expected.length);
    const chunks = batch.take();
    expect(chunks.length).toBeGreaterThan(2);
    expect(Buffer.concat(chunks).equals(expected)).toBe(true);
    expect([batch.rows, batch.bytes, batch.take()]).toEqual([0, 0, []]);
  });
});
