/**
 * The conversation's blocks for every format, read from the real sample logs through the real importers (a turn as
 * the inspector receives it), so that each format reads the same way: what the log said once is shown once, and
 * nothing it kept is lost.
 */
import { basename, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import type { CanonicalEpisode, CanonicalTurn } from '../../shared/canonical.ts';
import { detectImporter, readHead } from '../../electron/importers/pipeline.ts';
import { readEpisodes, walk } from '../../electron/importers/testing.ts';
import { actionIsReply, closingBlocks, fromFirstLine, hitAt, observationSaid, openingBlocks, replyCommand, turnBlocks, type Block } from './conversationBlocks.ts';

const root = fileURLToPath(new URL('../..', import.meta.url));
const samples = (p: string) => join(root, 'fixtures', p);

type TurnText = Parameters<typeof turnBlocks>[0];

/** A canonical turn as the inspector gets it from the API (nulls for what the log left out). */
function asStored(t: CanonicalTurn): TurnText {
  return {
    action: t.action.text ?? null,
    action_type: t.action.type,
    tool: t.action.tool ?? null,
    observation: t.observation ?? null,
    reasoning: t.reasoning ?? null,
    message: t.message ?? null,
    tool_calls: (t.tool_calls ?? []).map((c) => ({ id: c.id ?? null, name: c.name, input: c.input ?? null, result: c.result ?? null, is_error: c.is_error ?? null })),
    inputs: (t.inputs ?? []).map((m) => ({ role: m.role, text: m.text, timestamp: m.timestamp ?? null })),
  };
}

async function episodesOf(file: string): Promise<CanonicalEpisode[]> {
  const importer = detectImporter(readHead(file), basename(file));
  if (!importer) throw new Error(`no importer reads ${file}`);
  return (await readEpisodes(importer, file)).episodes;
}

async function episodeOf(file: string, id?: string): Promise<CanonicalEpisode> {
  const episodes = await episodesOf(file);
  const ep = id === undefined ? episodes[0] : episodes.find((e) => e.episode_id === id);
  if (!ep) throw new Error(`${file} has no episode ${id ?? ''}`);
  return ep;
}

function blocksAt(ep: CanonicalEpisode, t: number): Block[] {
  const turn = ep.turns[t];
  if (!turn) throw new Error(`no turn ${t}`);
  return turnBlocks(asStored(turn));
}

const kinds = (blocks: readonly Block[]) => blocks.map((b) => b.kind);
const only = <K extends Block['kind']>(blocks: readonly Block[], kind: K) => blocks.filter((b): b is Extract<Block, { kind: K }> => b.kind === kind);

describe('turnBlocks, format by format', () => {
  it('MTRouter HLE: the words, then each <tool_call> as a call with its arguments and its <tool_response> as the result', async () => {
    const ep = await episodeOf(samples('mtrouter/hle/roulette/66f2a7c9d0e14b3a8c5d6e70/66f2a7c9d0e14b3a8c5d6e70.traj.json'));
    const blocks = blocksAt(ep, 0);
    expect(kinds(blocks)).toEqual(['assistant', 'tool-call']);
    expect(only(blocks, 'assistant')[0]?.text).toBe('Energy conservation: m g L/2 = (1/2)(m L^2/3) omega^2, so omega = sqrt(3 g / L).');
    const call = only(blocks, 'tool-call')[0]?.call;
    expect(call?.name).toBe('python');
    // The arguments as an object, the code with real line breaks (not the reply's escaped JSON text).
    expect(JSON.parse(call?.input ?? '{}')).toEqual({ code: 'import math\nL = 1.2\ng = 9.81\nprint(math.sqrt(3 * g / L))' });
    expect(call?.result).toBe('4.9522722057657536\n');
  });

  it('MTRouter HLE, XML form and the answer: the call read from its tags; the environment’s echo kept', async () => {
    const ep = await episodeOf(samples('mtrouter/hle/roulette_propensity/671f0b9e3c2d8a4e5b6f7a18_run2/671f0b9e3c2d8a4e5b6f7a18_run2.traj.json'));
    const last = blocksAt(ep, ep.turns.length - 1);
    expect(kinds(last)).toEqual(['assistant', 'tool-call', 'observation']);
    expect(only(last, 'tool-call')[0]?.call).toMatchObject({ name: 'answer', input: '{"answer":"Accusative"}', result: null });
    expect(only(last, 'observation')[0]?.text).toBe('Accusative');
  });

  it('Inspect: each `name({json})` call with its result, and the final prose answer as the model’s message', async () => {
    const ep = await episodeOf(samples('samples/inspect/2025-05-12T20-27-36-04-00_browser.json'));
    const first = blocksAt(ep, 0);
    expect(kinds(first)).toEqual(['tool-call']);
    expect(only(first, 'tool-call')[0]?.call).toMatchObject({ name: 'web_browser_go', input: '{"url":"https://www.aisi.gov.uk/"}', result: ep.turns[0]?.observation });
    const answer = blocksAt(ep, 4);
    expect(kinds(answer)).toEqual(['assistant']);
    expect(only(answer, 'assistant')[0]?.text).toMatch(/^The AI Security Institute \(AISI\) is the premier/);
    const mmlu = await episodeOf(samples('samples/inspect/mmlu-summary-choices.eval'));
    expect(blocksAt(mmlu, 0)).toEqual([{ kind: 'assistant', text: 'ANSWER: C', source: 'action' }]);
  });

  it('Gemini CLI: the info line before the call, thoughts as reasoning, every call with its result; the task kept whole', async () => {
    const ep = await episodeOf(samples('samples/gemini-cli/vct-gemini.jsonl'));
    expect(kinds(blocksAt(ep, 0))).toEqual(['canned', 'reasoning', 'tool-call', 'tool-call', 'tool-call', 'tool-call', 'tool-call']);
    expect(only(blocksAt(ep, 0), 'tool-call').every((b) => b.call.result != null)).toBe(true);
    expect(kinds(blocksAt(ep, 3))).toEqual(['assistant', 'tool-call']);
    // The task opens with a blank line; the block keeps it (the component shows the text from its first line).
    const opening = openingBlocks({ system_prompt: ep.system_prompt ?? null, task_text: ep.task.text ?? null });
    expect(kinds(opening)).toEqual(['task']);
    expect(only(opening, 'task')[0]?.text).toMatch(/^\nYou are an AI agent/);
  });

  it('mini-swe-agent: the THOUGHT as the model’s words, the ```bash block as a command with what it printed', async () => {
    const ep = await episodeOf(samples('samples/mini-swe-agent/trajs/astropy__astropy-7166/astropy__astropy-7166.traj.json'));
    const blocks = blocksAt(ep, 3);
    expect(kinds(blocks)).toEqual(['assistant', 'command']);
    expect(only(blocks, 'assistant')[0]?.text).toMatch(/^Okay, `InheritDocstrings` starts on line 497/);
    expect(only(blocks, 'command')[0]).toMatchObject({ name: 'bash', command: "sed -n '497,550p' astropy/utils/misc.py", result: ep.turns[3]?.observation });
  });

  it('MTRouter ScienceWorld: the ```text command as a command of its category', async () => {
    const ep = await episodeOf(samples('mtrouter/scienceworld/learned_pool7/use-thermometer_var2_run0/use-thermometer_var2_run0.traj.json'));
    const blocks = blocksAt(ep, 0);
    expect(kinds(blocks)).toEqual(['assistant', 'command']);
    expect(only(blocks, 'command')[0]).toMatchObject({ name: 'observation', command: 'look around' });
  });

  it('Claude Code: thinking as reasoning, calls with results, the digest and the joined results not repeated; a compaction summary and a subagent in place', async () => {
    const ep = await episodeOf(samples('samples/claude-code/spotter/8463c716-a2ea-4c14-9efa-87158ebd9f20.jsonl'), '8463c716-a2ea-4c14-9efa-87158ebd9f20');
    expect(kinds(blocksAt(ep, 2))).toEqual(['reasoning', 'assistant', 'tool-call', 'tool-call', 'tool-call']);
    // `Task (Explore): …` is the importer's digest of the Task call, not words of the model's own.
    expect(kinds(blocksAt(ep, 89))).toEqual(['reasoning', 'assistant', 'tool-call']);
    expect(kinds(blocksAt(ep, 71))[0]).toBe('summary');
    const child = { id: 9, ext_id: 'agent-a7be2f0', kind: 'subagent', parent_t: 89, n_turns: 13, total_cost: null, models: [] };
    expect(kinds(turnBlocks(asStored(ep.turns[89] as CanonicalTurn), [child])).at(-1)).toBe('subagent');
  });

  it('Codex: injected context, the model’s words, the call; Aider: the user’s prompts mid-session, the reply, the edit it applied', async () => {
    const codex = await episodeOf(samples('samples/codex/vct-codex.jsonl'));
    expect(kinds(blocksAt(codex, 0))).toEqual(['injected', 'assistant', 'tool-call']);
    const aider = (await episodesOf(samples('samples/aider/chat-history.md'))).find((e) => e.turns[1]?.inputs?.length);
    const blocks = blocksAt(aider as CanonicalEpisode, 1);
    expect(kinds(blocks).filter((k) => k === 'user').length).toBeGreaterThan(0);
    expect(kinds(blocks).slice(-2)).toEqual(['assistant', 'command']);
  });

  it('SWE-agent: its thought as reasoning, the command with its output', async () => {
    const ep = await episodeOf(samples('samples/swe-agent/gpt4__swe-agent-test-repo__default_from_url__t-0.00__p-0.95__c-3.00__install-1/6e44b9__sweagenttestrepo-1c2844.traj'));
    expect(kinds(blocksAt(ep, 0))).toEqual(['reasoning', 'command']);
    expect(only(blocksAt(ep, 0), 'command')[0]).toMatchObject({ name: 'find_file', command: 'find_file missing_colon.py' });
  });

  it('every sample of every format: the action and the observation each shown by some block, no digest shown as an action', async () => {
    const files = ['samples', 'mtrouter'].flatMap((d) => walk(samples(d)));
    const seen = new Set<string>();
    let turns = 0;
    for (const file of files) {
      const importer = detectImporter(readHead(file), basename(file));
      if (!importer) continue;
      let episodes: CanonicalEpisode[];
      try {
        episodes = (await readEpisodes(importer, file)).episodes;
      } catch {
        continue; // a sidecar or a part of a folder read as a whole
      }
      for (const ep of episodes) {
        for (const t of ep.turns) {
          const turn = asStored(t);
          const blocks = turnBlocks(turn);
          const sources = blocks.map((b) => b.source).join(' ');
          if (turn.action?.trim()) expect(sources, `${importer.format} ${ep.episode_id} turn ${t.t}: action`).toMatch(/\baction\b/);
          if (turn.observation?.trim()) expect(sources, `${importer.format} ${ep.episode_id} turn ${t.t}: observation`).toMatch(/\bobservation\b/);
          if (turn.tool_calls.length > 0) expect(kinds(blocks), `${importer.format} ${ep.episode_id} turn ${t.t}`).not.toContain('action');
          seen.add(importer.format);
          turns++;
        }
      }
    }
    expect([...seen].sort()).toEqual(expect.arrayContaining(['aider', 'atif', 'claude-code', 'cline', 'codex', 'copilot-cli', 'crush', 'gemini-cli', 'inspect', 'mini-swe-agent', 'opencode', 'openhands', 'swe-agent']));
    expect(turns).toBeGreaterThan(500);
  });
});

describe('the rules behind the blocks', () => {
  const call = (name: string, input: string | null, result: string | null = null) => ({ id: null, name, input, result, is_error: null });

  it('replyCommand: the one bash or text block that ran, the words before it', () => {
    expect(replyCommand('THOUGHT: look.\n\n```bash\nls -la\n```')).toEqual({ thought: 'look.', command: 'ls -la' });
    expect(replyCommand('```text\nopen door\n```')).toEqual({ thought: '', command: 'open door' });
    expect(replyCommand('a\n```bash\nls\n```\nthen more')).toBeNull();
    expect(replyCommand('a\n```bash\nls\n```\n```bash\npwd\n```')).toBeNull();
  });

  it('actionIsReply: the reply the message and the calls were read from; not one with words of its own', () => {
    const calls = [call('python', '{"code":"print(1)"}')];
    expect(actionIsReply('Compute.\n\n<tool_call>{"name": "python", "arguments": {"code": "print(1)"}}</tool_call>', 'Compute.', calls)).toBe(true);
    expect(actionIsReply('Compute.\npython({"code":"print(1)"})', 'Compute.', calls)).toBe(true);
    expect(actionIsReply('Compute, and then I will also explain why.\n<tool_call>{"name": "python"}</tool_call>', 'Compute.', calls)).toBe(false);
  });

  it('observationSaid: the results joined or wrapped one per call, not an answer with more in it', () => {
    const calls = [call('search', null, 'found a'), call('python', null, '2')];
    expect(observationSaid('found a\n\n2', calls)).toBe(true);
    expect(observationSaid('Observation: <tool_response name="search">\nfound a\n</tool_response><tool_response name="python">\n2\n</tool_response>', calls)).toBe(true);
    expect(observationSaid('Observation: <tool_response name="search">\nfound a\n</tool_response> and a note', calls)).toBe(false);
    expect(observationSaid('found a', [call('search', null)])).toBe(false);
  });

  it('the messages around the turns keep their roles; a search hit names the block it matched', () => {
    const detail = (role: string, text: string) => ({ role, text, timestamp: null });
    expect(kinds(closingBlocks([detail('user', 'more?'), detail('system', 'bye'), detail('assistant', 'Request cancelled.')]))).toEqual(['user', 'injected', 'canned']);
    expect(turnBlocks({ ...asStored({ t: 0, model: 'm', action: { type: 'message', text: 'hi' } }), inputs: [detail('summary', 'so far'), detail('tool', 'orphan')] }).map((b) => [b.kind, b.source])).toEqual([
      ['summary', 'input:0'],
      ['tool-result', 'input:1'],
      ['assistant', 'action'],
    ]);
    expect(hitAt({ field: 'observation', message: null })).toBe('observation');
    expect(hitAt({ field: 'message', message: { role: 'user', index: 2, final: false } })).toBe('input:2');
    expect(hitAt({ field: 'message', message: { role: 'user', index: 0, final: true } })).toBe('final:0');
  });
});


describe('fromFirstLine', () => {
  it('drops blank lines before the text, and nothing else', () => {
    expect(fromFirstLine('\n  \nYou are an agent.\n\nDo it.')).toBe('You are an agent.\n\nDo it.');
    expect(fromFirstLine('  indented first line')).toBe('  indented first line');
  });
});
