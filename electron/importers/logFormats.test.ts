// The formats named to users (shared/logFormats.ts) are exactly the formats the importers read.
import { describe, expect, it } from 'vitest';
import { LOG_FORMAT_NAMES, logFormatList } from '../../shared/logFormats.ts';
import { IMPORTERS } from './registry.ts';

describe('log formats named to users', () => {
  it('name every importer and nothing else, in the registry order', () => {
    expect(Object.keys(LOG_FORMAT_NAMES)).toEqual(IMPORTERS.map((i) => i.format));
  });

  it('read as one sentence', () => {
    expect(logFormatList()).toMatch(/^canonical JSONL \(routelens\/v1\), Claude Code sessions, .* and Aider chat histories$/);
  });
});
