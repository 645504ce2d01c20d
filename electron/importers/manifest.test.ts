// Runs every row of fixtures/manifest.json through the real import pipeline (STYLE §6).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { openDatabase } from '../db/database.ts';
import { useTempDir } from '../testing/tmp.ts';
import { importPaths } from './pipeline.ts';

const fixtures = fileURLToPath(new URL('../../fixtures/', import.meta.url));
const Row = z.object({
  file: z.string(),
  format: z.string().optional(),
  error: z.string().optional(),
  expect: z.object({ episodes: z.number(), turns: z.number(), runs: z.array(z.string()).optional() }).optional(),
});
const manifest = z.object({ files: z.array(Row) }).parse(JSON.parse(readFileSync(join(fixtures, 'manifest.json'), 'utf8')));
const tempDir = useTempDir();

describe('fixture manifest', () => {
  for (const row of manifest.files) {
    it(`${row.file} → ${row.error ? 'rejected' : row.format}`, async () => {
      const db = openDatabase(join(tempDir(), 'm.db'));
      const report = await importPaths(db, [join(fixtures, row.file)]);
      const [file] = report.files;
      if (row.error) {
        expect(file?.status).toBe('rejected');
        expect(file?.reason).toMatch(new RegExp(row.error));
        expect(file?.reason).toMatch(/^.+:\d+: /);
        // Nothing of a rejected file stays behind.
        expect(db.prepare('SELECT COUNT(*) FROM episodes').pluck().get()).toBe(0);
        expect(db.prepare('SELECT COUNT(*) FROM sources').pluck().get()).toBe(0);
      } else {
        // A folder row imports every trajectory in it; all must import.
        for (const f of report.files) expect(f.status, f.reason).toBe('imported');
        expect(report.files.length).toBeGreaterThan(0);
        expect(new Set(report.files.map((f) => f.format))).toEqual(new Set([row.format]));
        expect(report.files.reduce((a, f) => a + f.episodes, 0)).toBe(row.expect?.episodes);
        expect(report.files.reduce((a, f) => a + f.turns, 0)).toBe(row.expect?.turns);
        if (row.expect?.runs) {
          expect(db.prepare('SELECT name FROM runs ORDER BY name').pluck().all()).toEqual(row.expect.runs);
        }
      }
      db.close();
    });
  }
});
