import { describe, expect, it } from 'vitest';
import { actionRepeatsCalls, commandOfArgv, observationIsResults, shellCall, thoughtAndCommand } from './turnBlocks.ts';

const call = (name: string, input: string | null, result: string | null = null) => ({ id: null, name, input, result, is_error: null });

describe('actionRepeatsCalls', () => {
  it('is true for the digests the importers write (one line a call, a multi-line command, a raw call)', () => {
    expect(actionRepeatsCalls('bash: bd show x\nbash: bd ready', [call('Bash', '{"command":"bd show x"}'), call('Bash', '{"command":"bd ready"}')])).toBe(true);
    expect(actionRepeatsCalls('Read src/a.py', [call('read_file', '{"file_path":"src/a.py"}')])).toBe(true);
    expect(actionRepeatsCalls('report_intent: Looking around', [call('report_intent', '{"intent":"Looking around"}')])).toBe(true);
    expect(actionRepeatsCalls('bash: set -e\n# step one\necho "a b"', [call('shell', '{"command":["bash","-lc","set -e\\n# step one\\necho \\"a b\\""]}')])).toBe(true);
    expect(actionRepeatsCalls('update_plan({"plan":[{"step":"Scan…)', [call('update_plan', '{"plan":[]}')])).toBe(true);
    expect(actionRepeatsCalls('Grep agentId in /a/b.jsonl\nEdit a.ts, b.ts', [call('Grep', '{"pattern":"agentId","path":"/a/b.jsonl"}'), call('apply_patch', '{"input":"*** Update File: a.ts\\n*** Update File: b.ts"}')])).toBe(true);
    expect(actionRepeatsCalls('TaskOutput {"task_id":"b6"}', [call('TaskOutput', '{"task_id":"b6"}')])).toBe(true);
    expect(actionRepeatsCalls('web_search: a long que…', [call('web_search', '{"query":"a long query"}')])).toBe(true);
  });
  it('is false when the action has words of its own, or when there are no calls', () => {
    expect(actionRepeatsCalls('THOUGHT: read the file.\n\n```bash\ncat src/a.py\n```', [call('bash', 'cat src/a.py')])).toBe(false);
    expect(actionRepeatsCalls('bash: ls', [])).toBe(false);
    expect(actionRepeatsCalls('Read b.py', [call('read_file', '{"file_path":"src/a.py"}')])).toBe(false);
  });
});

describe('observationIsResults', () => {
  it('recognises the results joined by a blank line or by a newline', () => {
    const calls = [call('a', null, 'one'), call('b', null, 'two')];
    expect(observationIsResults('one\n\ntwo', calls)).toBe(true);
    expect(observationIsResults('one\ntwo', calls)).toBe(true);
    expect(observationIsResults('one two', calls)).toBe(false);
    expect(observationIsResults(null, calls)).toBe(false);
    expect(observationIsResults('', [call('a', null)])).toBe(false);
  });
});

describe('shellCall', () => {
  it('reads the command of a shell tool, an argv run through `bash -lc` included, and lists the other arguments', () => {
    expect(shellCall('Bash', '{"command":"npm test","description":"Run the tests"}')).toEqual({ command: 'npm test', others: ['description: Run the tests'] });
    expect(shellCall('shell', '{"command":["bash","-lc","ls -la"],"workdir":"/w","timeout_ms":1000}')).toEqual({
      command: 'ls -la',
      others: ['workdir: /w', 'timeout_ms: 1000'],
    });
    expect(shellCall('execute_bash', '{"command": "pwd", "is_input": ""}')).toEqual({ command: 'pwd', others: [] });
  });
  it('is null for other tools, text that is not a JSON object, and a missing command', () => {
    expect(shellCall('Read', '{"command":"x"}')).toBeNull();
    expect(shellCall('bash', 'ls -la')).toBeNull();
    expect(shellCall('bash', '["ls"]')).toBeNull();
    expect(shellCall('bash', '{"restart":true}')).toBeNull();
  });
});

describe('commandOfArgv', () => {
  it('takes the script of `sh -c` and joins anything else', () => {
    expect(commandOfArgv(['bash', '-lc', 'ls'])).toBe('ls');
    expect(commandOfArgv(['git', 'status'])).toBe('git status');
  });
});

describe('thoughtAndCommand', () => {
  it('splits a mini-swe-agent reply into its thought and the command it ran', () => {
    expect(thoughtAndCommand('THOUGHT: look at `a.py` first.\n\n```bash\ncat a.py\n```')).toEqual({ thought: 'look at `a.py` first.', command: 'cat a.py' });
    expect(thoughtAndCommand('I will list.\n```bash\nls -la\necho done\n```\n')).toEqual({ thought: 'I will list.', command: 'ls -la\necho done' });
  });
  it('is null without words, with several blocks, with text after the block, or with no bash block', () => {
    expect(thoughtAndCommand('```bash\nls\n```')).toBeNull();
    expect(thoughtAndCommand('a\n```bash\nls\n```\nb\n```bash\npwd\n```')).toBeNull();
    expect(thoughtAndCommand('a\n```bash\nls\n```\nthen I will see.')).toBeNull();
    expect(thoughtAndCommand('a\n```python\nprint(1)\n```')).toBeNull();
    expect(thoughtAndCommand(null)).toBeNull();
  });
});
