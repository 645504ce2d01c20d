import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { canonicalJsonSchema } from './canonicalJsonSchema.ts';

describe('published JSON Schema', () => {
  it('is up to date with shared/canonical.ts (regenerate with `npm run schema`)', () => {
    const published = JSON.parse(readFileSync(new URL('./routelens-v1.schema.json', import.meta.url), 'utf8'));
    expect(published).toEqual(JSON.parse(JSON.stringify(canonicalJsonSchema())));
  });
});
