import { describe, expect, it } from 'vitest';
import { storedOutcome } from './storedOutcome.ts';

describe('an outcome explanation read back from a database', () => {
  it('is what the writer stored, {} when the log had none, null when none was stored', () => {
    expect(storedOutcome('{"target":"4.95","scorers":[{"name":"HLE judge","value":false}]}')).toEqual({
      target: '4.95', scorers: [{ name: 'HLE judge', value: false }],
    });
    expect(storedOutcome('{}')).toEqual({});
    expect(storedOutcome(null)).toBeNull();
  });

  it('is null, never made up, when a received database holds something else there', () => {
    for (const text of ['not json', '[1, 2]', '"text"', '{"scorers":[{"name":""}]}', '{"tests":[{"group":"F2P","passed":"all","failed":[]}]}']) {
      expect(storedOutcome(text), text).toBeNull();
    }
  });
});
