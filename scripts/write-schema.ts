// Regenerates shared/routelens-v1.schema.json from shared/canonical.ts (npm run schema).
import { writeFileSync } from 'node:fs';
import { canonicalJsonSchema } from '../shared/canonicalJsonSchema.ts';

const target = new URL('../shared/routelens-v1.schema.json', import.meta.url);
writeFileSync(target, `${JSON.stringify(canonicalJsonSchema(), null, 2)}\n`);
process.stdout.write(`wrote ${target.pathname}\n`);
