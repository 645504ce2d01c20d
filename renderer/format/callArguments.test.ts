import { describe, expect, it } from 'vitest';
import { callArguments } from './callArguments.ts';

describe('callArguments', () => {
  it('lays an argument object out one argument a line, a string’s line breaks as lines', () => {
    const edit = JSON.stringify({ file_path: '/a/b.css', old_string: 'a {\n  x: 1;\n}', replace_all: false, limits: [1, 20] });
    expect(callArguments('Edit', edit)).toEqual([
      { name: 'file_path', text: '/a/b.css', shape: 'inline' },
      { name: 'old_string', text: 'a {\n  x: 1;\n}', shape: 'text' },
      { name: 'replace_all', text: 'false', shape: 'inline' },
      { name: 'limits', text: '[1,20]', shape: 'inline' },
    ]);
  });

  it('highlights code and commands in their language, and a nested value as indented JSON', () => {
    const [code] = callArguments('python', '{"code":"import math\\nprint(math.pi)"}') ?? [];
    expect(code).toEqual({ name: 'code', text: 'import math\nprint(math.pi)', shape: 'code', language: 'python' });
    const [command] = callArguments('run', '{"command":"cd a\\nls"}') ?? [];
    expect(command).toMatchObject({ shape: 'code', language: 'bash' });
    const [plan] = callArguments('update_plan', JSON.stringify({ plan: [{ step: 'Scan the repository for go.mod', status: 'in_progress' }, { step: 'Update go.mod', status: 'pending' }] })) ?? [];
    expect(plan).toMatchObject({ shape: 'code', language: 'json' });
    expect(plan?.text).toContain('\n    "step": "Scan the repository for go.mod"');
  });

  it('leaves text that is not an argument object to be shown as written', () => {
    expect(callArguments('bash', 'ls -la')).toBeNull();
    expect(callArguments('f', '[1, 2]')).toBeNull();
    expect(callArguments('f', null)).toBeNull();
    expect(callArguments('f', '{}')).toEqual([]);
  });
});
