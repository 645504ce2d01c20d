// The mtrouter history layout on small hand examples, and on every turn of the MTRouter fixtures against the
// authors' own code (fixtures/mtrouter-history-reference.json): the exact text their estimator would embed.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { openDatabase } from '../db/database.ts';
import { importPaths } from '../importers/pipeline.ts';
import { useTempDir } from '../testing/tmp.ts';
import { APPROX_TOKEN_COUNTER, type HistoryTurn, type TokenCounter } from './historyText.ts';
import { mtrouterHistory, mtrouterTask, pyStrip } from './mtrouterHistory.ts';

const tempDir = useTempDir();
const root = fileURLToPath(new URL('../..', import.meta.url));

const FIRST_USER =
  'You are an agent in a text world.\n<task_description>\nYour task is to boil water.\n</task_description>\n' +
  '<initial_observation>\nThis room is called the hallway.\n</initial_observation>\nReply with one action.';
const EARLIER: HistoryTurn[] = [
  { action: 'go to kitchen', observation: 'You move to the kitchen.' },
  { action: 'look around', observation: 'You see a stove.' },
];

describe('mtrouterHistory', () => {
  it('lays out task and context with turn and role labels, answers numbered with the reply after them', () => {
    const h = mtrouterHistory(FIRST_USER, EARLIER, 8192, APPROX_TOKEN_COUNTER);
    expect(h.text).toBe(
      '[Task]\nYour task is to boil water.\n\n[Context]\n' +
        '[Turn 1 - user]\nThis room is called the hallway.\n\n' +
        '[Turn 1 - assistant]\ngo to kitchen\n\n' +
        '[Turn 2 - user]\nYou move to the kitchen.\n\n' +
        '[Turn 2 - assistant]\nlook around\n\n' +
        '[Turn 3 - user]\nYou see a stove.',
    );
    expect(h.segments).toEqual([h.text]);
    expect(h).toMatchObject({ keptMessages: 5, droppedMessages: 0, truncatedTask: false, recent: [], previousModel: null });
  });

  it('at turn 0 has the initial observation only, and no context block without one', () => {
    expect(mtrouterHistory(FIRST_USER, [], 8192, APPROX_TOKEN_COUNTER).text).toBe(
      '[Task]\nYour task is to boil water.\n\n[Context]\n[Turn 1 - user]\nThis room is called the hallway.',
    );
    expect(mtrouterHistory('Fix the failing test in foo.py.', [], 8192, APPROX_TOKEN_COUNTER).text).toBe('[Task]\nFix the failing test in foo.py.');
  });

  it('keeps whole messages from the newest back within max − 20 − task tokens, each costing 10 more', () => {
    // chars/4: task 27 chars = 7 tokens; newest first the messages cost 4+10, 3+10, 6+10, 4+10, 8+10.
    // max 70 leaves 70 − 20 − 7 = 43 = 14 + 13 + 16: three messages; max 69 leaves 42: two.
    const three = mtrouterHistory(FIRST_USER, EARLIER, 70, APPROX_TOKEN_COUNTER);
    expect(three.text).toBe(
      '[Task]\nYour task is to boil water.\n\n[Context]\n[Turn 2 - user]\nYou move to the kitchen.\n\n[Turn 2 - assistant]\nlook around\n\n[Turn 3 - user]\nYou see a stove.',
    );
    expect(three).toMatchObject({ keptMessages: 3, droppedMessages: 2 });
    expect(mtrouterHistory(FIRST_USER, EARLIER, 69, APPROX_TOKEN_COUNTER).text).toBe(
      '[Task]\nYour task is to boil water.\n\n[Context]\n[Turn 2 - assistant]\nlook around\n\n[Turn 3 - user]\nYou see a stove.',
    );
  });

  it('cuts a task of max − 20 tokens or more to its head and leaves out the context', () => {
    // room = 27 − 20 = 7 = the task's tokens: kept whole, alone. room 5: its first 5 tokens (20 chars).
    expect(mtrouterHistory(FIRST_USER, EARLIER, 27, APPROX_TOKEN_COUNTER)).toMatchObject({ text: '[Task]\nYour task is to boil water.', truncatedTask: false, keptMessages: 0 });
    expect(mtrouterHistory(FIRST_USER, EARLIER, 25, APPROX_TOKEN_COUNTER)).toMatchObject({ text: '[Task]\nYour task is to boil', truncatedTask: true });
  });

  it('counts with the encoder tokenizer when there is one', () => {
    // One token per word: the same budget now keeps more than chars/4 allows.
    const words: TokenCounter = {
      kind: 'words',
      count: (t) => (t.trim() ? t.trim().split(/\s+/).length : 0),
      head: (t, n) => t.split(/\s+/).slice(0, n).join(' '),
    };
    // task 6 words; messages newest first cost 4+10, 2+10, 5+10, 3+10, 6+10; max 80 leaves 54 ≥ 14+12+15+13.
    const h = mtrouterHistory(FIRST_USER, EARLIER, 80, words);
    expect(h.keptMessages).toBe(4);
    expect(h.text.startsWith('[Task]\nYour task is to boil water.\n\n[Context]\n[Turn 1 - assistant]\ngo to kitchen\n\n')).toBe(true);
  });

  it('leaves out an answer the log does not have, and numbers by the answers there are', () => {
    const h = mtrouterHistory('Q', [{ action: 'search', observation: 'found it' }, { action: 'submit', observation: null }], 8192, APPROX_TOKEN_COUNTER);
    expect(h.text).toBe('[Task]\nQ\n\n[Context]\n[Turn 0 - assistant]\nsearch\n\n[Turn 1 - user]\nfound it\n\n[Turn 1 - assistant]\nsubmit');
  });
});

describe('mtrouterTask', () => {
  it('reads the task as the reference does, in its order of preference', () => {
    expect(mtrouterTask('<task_description>  Boil water. </task_description> Your task is to melt ice.')).toBe('Boil water.');
    expect(mtrouterTask('Answer this.\n## HLE Question\n\nWhat is 2+2?\n(A) 3 (B) 4\n\n---\nReply with the letter.')).toBe('What is 2+2?\n(A) 3 (B) 4');
    expect(mtrouterTask('Hello. Your task is to find the key. Then leave.')).toBe('Your task is to find the key.');
    expect(mtrouterTask('  Fix the bug in foo.py\n')).toBe('Fix the bug in foo.py');
  });

  it("strips as Python's str.strip, not as JavaScript's trim", () => {
    expect(pyStrip('\x1c\x85 task \u3000')).toBe('task');
    expect(pyStrip('\ufefftask')).toBe('\ufefftask');
  });
});

describe('conformance with the reference', () => {
  it("gives the authors' text for every turn of the MTRouter fixtures at budgets from 8192 to 30 tokens", async () => {
    const { cases } = JSON.parse(readFileSync(join(root, 'fixtures', 'mtrouter-history-reference.json'), 'utf8')) as {
      cases: { file: string; turn: number; max_tokens: number; chars: number; sha256: string }[];
    };
    const files = [...new Set(cases.map((c) => c.file))];
    expect(files.length).toBeGreaterThanOrEqual(7);
    for (const file of files) {
      const db = openDatabase(join(tempDir(), 'x.db'));
      try {
        const report = await importPaths(db, [join(root, file)]);
        expect(report.files[0]?.status, report.files[0]?.reason).toBe('imported');
        const task = db.prepare('SELECT task_text FROM episode_text').pluck().get() as string;
        const turns = db.prepare('SELECT x.action, x.observation FROM turns t LEFT JOIN turn_text x ON x.turn_id = t.id ORDER BY t.t').all() as HistoryTurn[];
        for (const c of cases.filter((x) => x.file === file)) {
          const text = mtrouterHistory(task, turns.slice(0, c.turn), c.max_tokens, APPROX_TOKEN_COUNTER).text;
          const what = `${file} turn ${c.turn} at ${c.max_tokens} tokens:\n${text}`;
          expect(text.length, what).toBe(c.chars);
          expect(createHash('sha256').update(text).digest('hex'), what).toBe(c.sha256);
        }
      } finally {
        db.close();
      }
    }
  });
});
