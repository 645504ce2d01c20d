// Issue 38 item 6: a session of a million turns opened through `routelens serve`. Before, getEpisode built every turn's
// details into one answer (gigabytes) and the server died of memory; now it answers an outline of every turn and one
// page, a page comes on demand, and the server keeps answering. `npm test` runs it on 20,000 turns (ten pages);
// `npm run test:attack` (ROUTELENS_ATTACK=full) on a million.
import { spawnSync } from 'node:child_process';
import { createWriteStream } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { EpisodeDetail, TURN_PAGE } from '../../shared/api.ts';
import { postApi, spawnServe } from '../testing/serveChild.ts';
import { useSuiteTempDir } from '../testing/tmp.ts';

const root = fileURLToPath(new URL('../../', import.meta.url));
const bin = join(root, 'bin/routelens.mjs');
const tempDir = useSuiteTempDir();
const TURNS = process.env.ROUTELENS_ATTACK === 'full' ? 1_000_000 : 20_000;

/** A Claude Code session: one Bash call and its result per turn, three models, a failed call every 997th. */
async function writeSession(file: string): Promise<void> {
  const out = createWriteStream(file);
  const write = async (o: unknown) => {
    if (!out.write(`${JSON.stringify(o)}\n`)) await new Promise<void>((r) => out.once('drain', () => r()));
  };
  const sessionId = '11111111-2222-3333-4444-555555555555';
  const uuid = (n: number) => `00000000-0000-0000-0000-${String(n).padStart(12, '0')}`;
  const at = (n: number) => new Date(Date.UTC(2026, 0, 1) + n * 1000).toISOString();
  await write({ parentUuid: null, isSidechain: false, sessionId, type: 'user', message: { role: 'user', content: 'Run forever.' }, uuid: uuid(0), timestamp: at(0) });
  for (let t = 0; t < TURNS; t++) {
    const failed = t % 997 === 0;
    await write({
      parentUuid: uuid(2 * t), isSidechain: false, sessionId, type: 'assistant', requestId: `req_${t}`, uuid: uuid(2 * t + 1), timestamp: at(2 * t + 1),
      message: {
        model: ['claude-opus-4-6', 'claude-sonnet-4-5', 'claude-haiku-4-5'][Math.floor(t / 50) % 3], id: `msg_${t}`, type: 'message', role: 'assistant',
        content: [{ type: 'tool_use', id: `tu_${t}`, name: 'Bash', input: { command: `echo ${t}` } }],
        usage: { input_tokens: 3, cache_read_input_tokens: 1000, output_tokens: 20 },
      },
    });
    await write({
      parentUuid: uuid(2 * t + 1), isSidechain: false, sessionId, type: 'user', uuid: uuid(2 * t + 2), timestamp: at(2 * t + 2),
      message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: `tu_${t}`, content: failed ? 'Error: boom' : String(t), is_error: failed }] },
    });
  }
  await new Promise<void>((resolve, reject) => out.end((err?: Error | null) => (err ? reject(err) : resolve())));
}

let dbPath = '';
beforeAll(async () => {
  const dir = tempDir();
  const log = join(dir, 'long-session.jsonl');
  await writeSession(log);
  dbPath = join(dir, 'long.db');
  const r = spawnSync(process.execPath, [bin, 'import', log, '--db', dbPath], { encoding: 'utf8', cwd: root, timeout: 900_000 });
  expect(r.status, r.stderr).toBe(0);
}, 900_000);

describe(`a session of ${TURNS.toLocaleString('en')} turns through serve`, () => {
  it('opens as an outline and a page, brings any other page, and the server keeps answering', async () => {
    const served = spawnServe(bin, root, dbPath);
    try {
      const url = await served.url;
      const port = Number(url.port);
      const token = url.searchParams.get('token') ?? '';
      const opened = await postApi(port, token, 'getEpisode', { ext_id: '11111111-2222-3333-4444-555555555555', around: TURNS - 1 });
      expect(opened.status, opened.text.slice(0, 300)).toBe(200);
      // The outline is a few numbers a turn; a page of details rides along.
      expect(opened.text.length).toBeLessThan(40 * TURNS + 4_000_000);
      const detail = EpisodeDetail.parse((JSON.parse(opened.text) as { value: unknown }).value);
      expect(detail.turn_count).toBe(TURNS);
      expect(detail.outline?.t).toHaveLength(TURNS);
      expect(detail.outline?.errors).toHaveLength(Math.ceil(TURNS / 997));
      const lastPage = Math.floor((TURNS - 1) / TURN_PAGE) * TURN_PAGE;
      expect(detail.turns_from).toBe(lastPage);
      expect(detail.turns.at(-1)?.tool_calls[0]?.input).toContain(`echo ${TURNS - 1}`);

      const middle = Math.floor(TURNS / 2 / TURN_PAGE) * TURN_PAGE;
      const page = await postApi(port, token, 'getTurns', { id: detail.episode.id, from: middle, count: TURN_PAGE });
      expect(page.status).toBe(200);
      const turns = (JSON.parse(page.text) as { value: { turns: EpisodeDetail['turns'] } }).value.turns;
      expect(turns).toHaveLength(TURN_PAGE);
      expect(turns[0]?.cumulative_cost).toBeGreaterThan(0);
      expect((await postApi(port, token, 'dbInfo', {})).status).toBe(200);
    } finally {
      served.child.kill('SIGTERM');
    }
  }, 600_000);
});
