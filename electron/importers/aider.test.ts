import { readFileSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { useTempDir } from '../testing/tmp.ts';
import { aiderImporter } from './aider.ts';
import { costOf, sessionCostOf, tokensLine } from './aiderLines.ts';
import { claimedFiles, readEpisodes, rejectionOf } from './testing.ts';

const fixtures = fileURLToPath(new URL('../../fixtures/', import.meta.url));
const shared = fileURLToPath(new URL('../../../shared/data/', import.meta.url));
const history = join(fixtures, 'samples/aider/chat-history.md');
const tempDir = useTempDir();

function write(name: string, text: string | Buffer): string {
  const file = join(tempDir(), name);
  writeFileSync(file, text);
  return file;
}

describe('Aider importer: the Aider author’s chat history (1,133 sessions)', () => {
  it('one episode per session with a model reply, one turn per "> Tokens:" line', async () => {
    const lines = readFileSync(history, 'utf8').split('\n');
    expect(lines.filter((l) => l.startsWith('# aider chat started at'))).toHaveLength(1133);
    expect(lines.filter((l) => l.startsWith('> Tokens:'))).toHaveLength(839);

    const { episodes, warnings } = await readEpisodes(aiderImporter, history);
    // 1,133 sessions = 452 with at least one Tokens line + 681 without (started and quit, commands only,
    // --show-repo, a reply cut by ^C before its Tokens line). No Tokens line precedes the first header, so
    // the 839 Tokens lines all fall in the 452 episodes: 839 turns.
    expect(episodes).toHaveLength(452);
    expect(episodes.reduce((a, e) => a + e.turns.length, 0)).toBe(839);
    expect(warnings).toContain('chat-history.md: 681 session(s) without a model reply (no "> Tokens:" line) skipped');
    expect(new Set(episodes.map((e) => e.run))).toEqual(new Set(['aider'])); // every `Git repo:` is relative
    expect(new Set(episodes.map((e) => e.episode_id)).size).toBe(452);
  });

  it('reproduces the logged tokens and costs', async () => {
    const { episodes } = await readEpisodes(aiderImporter, history);
    const turns = episodes.flatMap((e) => e.turns);
    const sum = (f: (t: (typeof turns)[number]) => number | null | undefined) => turns.reduce((a, t) => a + (f(t) ?? 0), 0);
    expect(sum((t) => t.tokens?.in)).toBe(7_607_932);
    expect(sum((t) => t.tokens?.out)).toBe(345_136);
    expect(sum((t) => t.tokens?.cached)).toBe(205_524);
    expect(sum((t) => t.tokens?.cache_write)).toBe(109_595);
    // 828 costs = 706 on the Tokens line + 122 on the line after it (`Cost: …` unprefixed); 11 lines have none.
    expect(turns.filter((t) => t.cost_usd != null)).toHaveLength(828);
    expect(sum((t) => t.cost_usd)).toBeCloseTo(25.592106, 6);
    expect(turns.every((t) => t.tokens != null)).toBe(true);
  });

  it('models from the header, weak model never a turn; 8 sessions announce none', async () => {
    const { episodes, warnings } = await readEpisodes(aiderImporter, history);
    const turns = episodes.flatMap((e) => e.turns);
    const count = (m: string) => turns.filter((t) => t.model === m).length;
    expect(count('claude-3-5-sonnet-20240620')).toBe(610);
    expect(count('gpt-4o-mini')).toBe(92);
    expect(count('anthropic/claude-3-haiku-20240307')).toBe(39); // announced as `…20240307⚡`
    expect(count('unknown')).toBe(19);
    expect(warnings).toContain('chat-history.md: 19 reply(ies) in sessions that announce no model: model "unknown"');
    expect(turns.every((t) => t.role == null)).toBe(true); // no architect session in this file
    expect(turns.filter((t) => t.model !== 'unknown').every((t) => t.notes?.[0]?.startsWith('model from the session header'))).toBe(true);
  });

  it('edits, commits and failed edits as the log states them', async () => {
    const { episodes } = await readEpisodes(aiderImporter, history);
    const first = episodes.find((e) => e.episode_id === '2024-08-07 07:46:37');
    expect(first?.task.text).toMatch(/^add a test which calls `simple_send_with_retries`/);
    const turns = episodes.flatMap((e) => e.turns);
    const edits = turns.filter((t) => t.action.type === 'edit');
    expect(edits.length).toBeGreaterThan(400);
    expect(edits.some((t) => /^edit \S+.*\(commit [0-9a-f]{7}/.test(t.action.text ?? ''))).toBe(true);
    expect(turns.filter((t) => t.errors?.length).every((t) => t.errors?.[0]?.type === 'edit_format_error')).toBe(true);
    expect(turns.every((t) => t.errors == null || t.errors.length > 0)).toBe(true);
  });

  it('an edit keeps its whole reply, SEARCH/REPLACE blocks included, as the message; a plain reply is the action text', async () => {
    const { episodes } = await readEpisodes(aiderImporter, history);
    const spinner = episodes.find((e) => e.episode_id === '2024-08-05 19:33:32')?.turns[0];
    expect(spinner?.action).toEqual({ type: 'edit', tool: 'edit', text: 'edit aider/utils.py (commit fd43cd4)' });
    expect(spinner?.message).toMatch(/^Certainly! I'll modify the `run_install` function in the `aider\/utils\.py` file/);
    expect(spinner?.message).toContain('aider/utils.py\n```python\n<<<<<<< SEARCH\ndef run_install(cmd):\n');
    expect(spinner?.message).toContain('    return False, output\n>>>>>>> REPLACE\n```\n');
    expect(spinner?.message).toMatch(/provides a consistent spinner behavior across the application\.$/);
    const turns = episodes.flatMap((e) => e.turns);
    expect(turns.filter((t) => t.action.type === 'message').every((t) => t.message == null)).toBe(true);
    // `/test` output and its `> ` echo come before the reply: no part of it.
    const fix = episodes.find((e) => e.episode_id === '2024-08-06 08:47:10')?.turns[2];
    expect(fix?.message).toMatch(/^To fix the error, we need to import the `GitRepo` class\. Let's add the import statement/);
    // A reply broken by an API error and its retry goes on after them: one reply.
    const retried = episodes.find((e) => e.episode_id === '2024-08-12 20:56:40')?.turns[0]?.action.text;
    expect(retried).toMatch(/^Voici la traduction en français :/);
    expect(retried).toContain('- Correction de bogue pour `/add` lorsque aider est lancé dans\n\n\nde GPT-4 Turbo (`gpt-4-1106-preview`).');
  });
});

describe('Aider importer: every user message of the real history', () => {
  /**
   * The user's messages counted from the file itself: a message is a run of `#### ` lines ending in two spaces (a
   * blank line inside one is `####` and the two spaces), in the sessions that have a Tokens line (the 452 episodes).
   */
  function userMessagesBySession(): string[][] {
    const sessions: { lines: string[] }[] = [];
    for (const line of readFileSync(history, 'utf8').split('\n')) {
      if (line.startsWith('# aider chat started at')) sessions.push({ lines: [] });
      else sessions.at(-1)?.lines.push(line);
    }
    return sessions
      .filter((s) => s.lines.some((l) => l.startsWith('> Tokens:')))
      .map((s) => {
        const messages: string[][] = [];
        let open = false;
        for (const l of s.lines) {
          // Aider ends each line of a user message with a hard break (two spaces); a reply's `#### Heading` has none.
          const user = /^####( .*)? {2}$/.test(l);
          if (user && !open) messages.push([]);
          if (user) messages.at(-1)?.push(l.trimEnd().slice(5));
          open = user;
        }
        return messages.map((m) => m.join('\n').trim()).filter((m) => m !== '');
      });
  }

  it('each lands in order: the first prompt as the task, the rest as the next turn’s inputs or final messages', async () => {
    const bySession = userMessagesBySession();
    expect(bySession).toHaveLength(452);
    expect(bySession.flat()).toHaveLength(1459);
    expect(bySession.flat().filter((m) => m.includes('\n'))).toHaveLength(49);
    const { episodes } = await readEpisodes(aiderImporter, history);
    let inputs = 0;
    let finals = 0;
    episodes.forEach((ep, i) => {
      const typed = bySession[i] ?? [];
      const kept = [...ep.turns.flatMap((t) => t.inputs ?? []), ...(ep.final_messages ?? [])];
      expect(kept.every((m) => m.role === 'user')).toBe(true);
      inputs += ep.turns.reduce((a, t) => a + (t.inputs?.length ?? 0), 0);
      finals += ep.final_messages?.length ?? 0;
      // The task is the first prompt that is not a command (`/ask Q` gives Q); every other message is kept as typed.
      const at = typed.findIndex((m) => !m.startsWith('/') || /^\/(ask|code|architect)\s+\S/.test(m));
      const task = at < 0 ? null : (typed[at] ?? '').replace(/^\/(ask|code|architect)\s+/, '');
      expect(ep.task.text, ep.episode_id).toBe(task);
      expect(kept.map((m) => m.text), ep.episode_id).toEqual(typed.filter((_, j) => j !== at));
    });
    expect(inputs + finals + episodes.filter((e) => e.task.text !== null).length).toBe(1459);
    expect(finals).toBe(232);
  });

  it('a prompt with blank lines is one message; two typed before a reply are two; those after the last reply are final', async () => {
    const { episodes } = await readEpisodes(aiderImporter, history);
    // Lines 5590–: a test and its Windows traceback pasted as one message, blank lines written as `#### `.
    const pasted = episodes.find((e) => e.episode_id === '2024-08-06 10:25:14')?.task.text;
    expect(pasted).toMatch(/^def test_subtree_only\(self\):\n {8}with GitTemporaryDirectory\(\):\n/);
    expect(pasted).toContain('>           self.assertFalse(git_repo.ignored_file(str(subdir_file)))\n\ntests\\basic\\test_repo.py:378:\n');
    const spinner = episodes.find((e) => e.episode_id === '2024-08-05 19:33:32');
    expect(spinner?.final_messages).toEqual([{ role: 'user', text: '/diff' }, { role: 'user', text: '/ex' }]);
    // Line 25745: the prompt typed again after ^C cut the first before any reply: both reached the model.
    const retyped = episodes.find((e) => e.episode_id === '2024-08-09 17:34:38');
    expect(retyped?.task.text).toBe("don't use confirm(), just prompt()");
    expect(retyped?.turns[0]?.inputs).toEqual([{ role: 'user', text: "don't use confirm(), just prompt() with default=y" }]);
  });

  it('a `#### Heading` in a reply (no hard break) stays in the reply', async () => {
    const { episodes } = await readEpisodes(aiderImporter, history);
    const webUi = episodes.find((e) => e.episode_id === '2024-08-08 15:59:20')?.turns[0];
    expect(webUi?.inputs).toBeNull();
    expect(webUi?.action.text).toContain('\n#### `InputOutput` Class\n');
    expect(webUi?.action.text).toContain('\n#### `Coder` Class\n');
  });
});

describe('Aider importer: the session total Aider prints', () => {
  it('is the log total: the "$… session" figure of the last Cost line', async () => {
    const { episodes } = await readEpisodes(aiderImporter, history);
    // 11 of the 452 sessions have no Cost line at all (Tokens lines without one).
    const totalled = episodes.filter((e) => e.log_totals != null);
    expect(totalled).toHaveLength(441);
    expect(totalled.reduce((a, e) => a + (e.log_totals?.cost_usd ?? 0), 0)).toBeCloseTo(30.0393768, 6);
    const spinner = episodes.find((e) => e.episode_id === '2024-08-05 19:33:32');
    expect(spinner?.log_totals).toEqual({ source: 'the "$… session" total on the last Cost line', cost_usd: 0.02 });
    // Line 5184: the only reply under the 09:51:03 header says "$0.06 request, $0.34 session": the running total of
    // another Aider process writing the same history (the totals under the next headers go on from it: 0.41, 0.47).
    // A real difference, so the import warns.
    const shared = episodes.find((e) => e.episode_id === '2024-08-06 09:51:03');
    expect(shared?.turns.map((t) => t.cost_usd)).toEqual([0.06]);
    expect(shared?.log_totals?.cost_usd).toBe(0.34);
  });

  it('reads the session figure on the Tokens line and on the Cost line after it', () => {
    expect(sessionCostOf('> Tokens: 5,244 sent, 604 received. Cost: $0.02 request, $0.05 session.')).toBe(0.05);
    expect(sessionCostOf('Cost: $0.0027 message, $0.0049 session.')).toBe(0.0049);
    expect(sessionCostOf('> Tokens: 5,244 sent, 604 received.')).toBeUndefined();
  });
});

describe('Aider importer: architect mode and header variants', () => {
  // Written in the shape Aider 0.57+ logs architect sessions (no public history with one was found).
  const architect = [
    '# aider chat started at 2024-10-01 10:00:00',
    '',
    '> aider --architect --model o1-preview --editor-model claude-3-5-sonnet-20241022  ',
    '> Aider v0.58.0  ',
    '> Main model: o1-preview with architect edit format  ',
    '> Editor model: claude-3-5-sonnet-20241022 with editor-diff edit format  ',
    '> Weak model: gpt-4o-mini  ',
    '> Git repo: /home/dev/widgets/.git with 12 files  ',
    '',
    '#### make the widget blue  ',
    '',
    'Change the colour in `style.css` to blue.',
    '',
    '> Tokens: 1.2k sent, 300 received. Cost: $0.03 message, $0.03 session.  ',
    '',
    'style.css',
    '```css',
    '<<<<<<< SEARCH',
    'color: red;',
    '=======',
    'color: blue;',
    '>>>>>>> REPLACE',
    '```',
    '',
    '> Tokens: 2,048 sent, 1,024 cache write, 512 cache hit, 80 received.',
    'Cost: $0.004 message, $0.034 session.  ',
    '> Applied edit to style.css  ',
    '> Commit abc1234 feat: blue widget  ',
    '',
    '#### /ask why blue?  ',
    '',
    'Because you asked.',
    '',
    '> Tokens: 900 sent, 12 received.  ',
    '',
  ].join('\n');

  it('the first Tokens line after a user message is the architect’s, the next the editor’s', async () => {
    const { episodes } = await readEpisodes(aiderImporter, write('.aider.chat.history.md', architect));
    const [ep] = episodes;
    expect(ep?.run).toBe('aider/widgets');
    expect(ep?.task).toMatchObject({ text: 'make the widget blue', category: 'widgets' });
    expect(ep?.agent?.version).toBe('0.58.0');
    expect(ep?.turns.map((t) => [t.role, t.model])).toEqual([
      ['architect', 'o1-preview'],
      ['editor', 'claude-3-5-sonnet-20241022'],
      ['architect', 'o1-preview'],
    ]);
    expect(ep?.turns[1]?.notes?.[0]).toMatch(/inferred from the order of the cost lines/);
    expect(ep?.turns[0]).toMatchObject({ action: { type: 'message' }, tokens: { in: 1200, out: 300 }, cost_usd: 0.03 });
    expect(ep?.turns[1]).toMatchObject({
      action: { type: 'edit', tool: 'edit', text: 'edit style.css (commit abc1234)' },
      tokens: { in: 2048, out: 80, cached: 512, cache_write: 1024 },
      cost_usd: 0.004,
    });
    expect(ep?.turns[2]?.cost_usd ?? null).toBeNull();
    // Each reply on its own turn: the architect's is its action text, the editor's edit keeps its own.
    expect(ep?.turns[0]?.action.text).toBe('Change the colour in `style.css` to blue.');
    expect(ep?.turns[0]?.message ?? null).toBeNull();
    expect(ep?.turns[1]?.message).toBe('style.css\n```css\n<<<<<<< SEARCH\ncolor: red;\n=======\ncolor: blue;\n>>>>>>> REPLACE\n```');
  });

  it('parses the Tokens and Cost shapes of Aider’s versions', () => {
    expect(tokensLine('> Tokens: 12k sent, 1.5k cache hit, 1,234 received. Cost: $0.01 request, $0.02 session.')).toEqual({
      sent: 12_000, received: 1_234, cacheHit: 1_500, cacheWrite: null,
    });
    expect(tokensLine('> Tokens: 9,869 sent, 0 received.')).toMatchObject({ sent: 9869, received: 0 });
    expect(tokensLine('> Tokens: lots sent')).toBeNull();
    expect(costOf('Cost: $0.00024 message, $0.00024 session.Use --no-stream')).toBe(0.00024);
    expect(costOf('> Tokens: 1 sent, 1 received.')).toBeUndefined();
  });
});

describe('Aider importer: broken files', () => {
  it('hostile numbers are refused at their line', async () => {
    const text = readFileSync(history, 'utf8');
    const lines = text.split('\n');
    const at = lines.findIndex((l) => l.startsWith('> Tokens:'));
    lines[at] = '> Tokens: 99,999,999,999 sent, 1 received. Cost: $0.01 message, $0.01 session.  ';
    const err = await rejectionOf(aiderImporter, write('huge.md', lines.join('\n')));
    expect(err.line).toBe(at + 1);
    expect(err.reason).toMatch(/over the limit/);

    lines[at] = '> Tokens: 10 sent, 1 received. Cost: $99999999 message, $0.01 session.  ';
    expect((await rejectionOf(aiderImporter, write('cost.md', lines.join('\n')))).line).toBe(at + 1);
  });

  it('invalid UTF-8 is refused at its line; a truncated history imports what it holds', async () => {
    const bytes = readFileSync(history);
    const cut = bytes.indexOf('\n# aider chat started at 2024-08-05 20:39:59');
    const corrupt = Buffer.concat([bytes.subarray(0, cut + 1), Buffer.from([0xff, 0xfe, 0x0a]), bytes.subarray(cut + 1)]);
    const err = await rejectionOf(aiderImporter, write('bad.md', corrupt));
    expect(err.reason).toMatch(/UTF-8/);
    expect(err.line).toBe(bytes.subarray(0, cut + 1).toString('utf8').split('\n').length);

    const truncated = write('cut.md', bytes.subarray(0, 200_000));
    const { episodes } = await readEpisodes(aiderImporter, truncated);
    expect(episodes.length).toBeGreaterThan(0);
    expect(episodes.length).toBeLessThan(452);
  });

  it('a markdown file without a session header is not Aider’s', async () => {
    const file = write('notes.md', '# Notes\n\n> Tokens: 1 sent, 1 received.\n');
    expect(aiderImporter.detect(readFileSync(file, 'utf8'), 'notes.md')).toBe(false);
    expect((await rejectionOf(aiderImporter, file)).reason).toMatch(/no "# aider chat started at"/);
  });
});

describe('Aider importer: detection', () => {
  it('claims the chat histories only, and they go to Aider', () => {
    const claimed = claimedFiles(aiderImporter, [join(fixtures, 'samples'), shared]);
    expect(claimed.map((f) => basename(f))).toEqual(['chat-history.md', 'chat-history.md']);
  });
});
