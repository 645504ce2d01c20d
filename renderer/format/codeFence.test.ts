import { describe, expect, it } from 'vitest';
import { actionFormat, actionLanguage, codeFence, jsonInput } from './codeFence.ts';

describe('codeFence', () => {
  it('fences with three backticks and the language', () => {
    expect(codeFence('ls -la', 'bash')).toBe('```bash\nls -la\n```');
  });
  it('uses a fence longer than any backtick run in the text, so the text cannot close it', () => {
    expect(codeFence('echo "```"\n````\nx', 'bash')).toBe('`````bash\necho "```"\n````\nx\n`````');
  });
});

describe('actionLanguage', () => {
  it('highlights shell and python tools', () => {
    expect(actionLanguage('bash', 'tool', 'ls')).toBe('bash');
    expect(actionLanguage(null, 'execute_bash', 'ls')).toBe('bash');
    expect(actionLanguage('python', 'tool', 'print(1)')).toBe('python');
  });
  it('leaves other actions and text with control characters plain', () => {
    expect(actionLanguage('navigation', 'tool', 'go to kitchen')).toBeNull();
    expect(actionLanguage('bash', 'tool', 'printf "\u001b[31mred"')).toBeNull();
  });
});

describe('jsonInput', () => {
  it('indents one-line JSON and keeps JSON already laid out', () => {
    expect(jsonInput('{"path":"a.py","line":3}')).toBe('{\n  "path": "a.py",\n  "line": 3\n}');
    expect(jsonInput('{\n "a": 1\n}')).toBe('{\n "a": 1\n}');
  });
  it('is null for text that is not JSON', () => {
    expect(jsonInput('ls -la')).toBeNull();
    expect(jsonInput('{not json')).toBeNull();
    expect(jsonInput('42')).toBeNull();
  });
});

describe('actionFormat', () => {
  it('reads a response with fenced code as markdown, even from a bash tool', () => {
    expect(actionFormat('bash', 'tool', 'THOUGHT: look.\n\n```bash\nls\n```')).toEqual({ format: 'markdown' });
  });
  it('reads a bare command of a shell tool as bash, and other actions as logged', () => {
    expect(actionFormat('bash', 'tool', 'ls -la')).toEqual({ format: 'code', language: 'bash' });
    expect(actionFormat('navigation', 'tool', 'go to kitchen')).toEqual({ format: 'terminal' });
    expect(actionFormat('bash', 'tool', null)).toEqual({ format: 'terminal' });
  });
});
