import { describe, expect, it } from 'vitest';
import { scienceWorldTool, textActionOf, toolCallActionOf, toolCallsOf } from './mtrouterActions.ts';

describe('ScienceWorld text actions', () => {
  it('groups commands by the simulator\'s action categories', () => {
    const cases: [string, string][] = [
      ['go to kitchen', 'navigation'], ['teleport to hallway', 'navigation'], ['move thermometer to inventory', 'navigation'],
      ['pick up metal pot', 'object'], ['pour water into pot', 'object'], ['put down cup', 'object'],
      ['look around', 'observation'], ['look at stove', 'observation'], ['inventory', 'observation'], ['read book', 'observation'],
      ['activate stove', 'device'], ['use thermometer on water', 'device'], ['turn off sink', 'device'],
      ['open door to kitchen', 'door'], ['close freezer', 'door'],
      ['connect battery to wire', 'electrical'], ['disconnect wire', 'electrical'],
      ['focus on water', 'interaction'], ['mix cup', 'interaction'], ['eat apple', 'interaction'],
      ['?navigation', 'query'], ['? all', 'query'],
      ['wait', 'wait'], ['wait1', 'wait'], ['wait 5', 'wait'], ['task', 'observation'],
      ['Look Around', 'observation'], ['dance', 'other'], ['waiter', 'other'],
    ];
    for (const [command, tool] of cases) expect(scienceWorldTool(command), command).toBe(tool);
  });

  it('runs exactly one text block; a finish word is the submission', () => {
    expect(textActionOf('THOUGHT: go.\n```text\ngo to kitchen\n```')).toMatchObject({ type: 'tool', tool: 'navigation' });
    expect(textActionOf('```text\n  task completed \n```')).toMatchObject({ type: 'submit', tool: null });
    expect(textActionOf('```text\nlook around\n```\n```text\ninventory\n```')).toMatchObject({ type: 'message', tool: null });
    expect(textActionOf('```bash\nls\n```')).toMatchObject({ type: 'message', tool: null });
    expect(textActionOf('```text\nDONE\n```', ['DONE'])).toMatchObject({ type: 'submit' });
  });
});

describe('HLE tool calls', () => {
  it('reads JSON, near-JSON and XML calls, and the fenced variants', () => {
    expect(toolCallsOf('<tool_call>{"name": "search", "arguments": {"query": "x"}}</tool_call>')).toEqual(['search']);
    // The reference's repairs: bare or single-quoted keys and trailing commas (a single-quoted value stays broken).
    expect(toolCallsOf('<tool_call>{name: "python", \'arguments\': {code: "print(1)"},}</tool_call>')).toEqual(['python']);
    expect(toolCallsOf("<tool_call>{'name': 'python'}</tool_call>")).toEqual([]);
    expect(toolCallsOf('<tool_call>\n<browse>\n<url>https://a.b</url>\n</browse>\n</tool_call>')).toEqual(['browse']);
    expect(toolCallsOf('```tool\n{"name": "answer", "arguments": {"answer": "4"}}\n```')).toEqual(['answer']);
    expect(toolCallsOf('<tool_call><search><query>a</query></search></tool_call> and <tool_call>{"name":"python"}</tool_call>')).toEqual(['search', 'python']);
  });

  it('a block repeated verbatim counts once; a block naming nothing known counts none', () => {
    const block = '<tool_call>{"name": "search"}</tool_call>';
    expect(toolCallsOf(`${block}\n${block}`)).toEqual(['search']);
    expect(toolCallsOf('<tool_call>{"arguments": {}}</tool_call>')).toEqual([]);
    expect(toolCallsOf('<tool_call><fly><to>moon</to></fly></tool_call>')).toEqual([]);
    expect(toolCallsOf('<tool_call>{"name": "fly"}</tool_call>')).toEqual(['fly']);
  });

  it('the first call is the tool; a call to the answer tool is the submission; no call is a message', () => {
    const both = '<tool_call>{"name": "python"}</tool_call><tool_call>{"name": "answer"}</tool_call>';
    expect(toolCallActionOf(both)).toMatchObject({ type: 'submit', tool: 'python' });
    expect(toolCallActionOf('<tool_call>{"name": "search"}</tool_call>')).toMatchObject({ type: 'tool', tool: 'search' });
    expect(toolCallActionOf('The answer is 4.')).toEqual({ type: 'message', tool: null, text: 'The answer is 4.' });
    expect(toolCallActionOf('<tool_call>{"name": "submit"}</tool_call>', ['search'], 'submit')).toMatchObject({ type: 'submit', tool: 'submit' });
  });
});
