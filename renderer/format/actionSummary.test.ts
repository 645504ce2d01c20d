import { describe, expect, it } from 'vitest';
import { actionSummary } from './actionSummary.ts';

describe('action summary', () => {
  it('shows the command of a fenced block, not the thought before it', () => {
    expect(actionSummary("THOUGHT: look first.\n\n```bash\nls -la src/\n```", 'tool')).toBe('ls -la src/');
  });
  it('names a tool call', () => {
    expect(actionSummary('Reasoning…\n<tool_call>{"name":"answer","arguments":{}}</tool_call>', 'tool')).toBe('answer(…)');
  });
  it('falls back to the first line without a THOUGHT prefix, then to the tool', () => {
    expect(actionSummary('THOUGHT: I will submit now', 'tool')).toBe('I will submit now');
    expect(actionSummary(null, 'web_search')).toBe('web_search');
  });
});
