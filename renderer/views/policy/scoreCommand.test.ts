import { describe, expect, it } from 'vitest';
import { scoreCommand } from './scoreCommand.ts';

describe('scoreCommand', () => {
  it('names the database, quoting a path a shell would split', () => {
    expect(scoreCommand('/tmp/e2e.db')).toBe('routelens score --db /tmp/e2e.db --model models/default-estimator.onnx');
    expect(scoreCommand("/home/me/my runs/it's.db")).toBe(`routelens score --db '/home/me/my runs/it'\\''s.db' --model models/default-estimator.onnx`);
    expect(scoreCommand(undefined)).toContain('--db FILE.db');
  });
});
