// Detection by positive signatures, and the "closest format" named when no importer claims a file (issue 34).
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openDatabase } from '../db/database.ts';
import { useTempDir } from '../testing/tmp.ts';
import { closestFormat } from './closestFormat.ts';
import { miniSweAgentImporter } from './miniSweAgent.ts';
import { importPaths } from './pipeline.ts';
import { IMPORTERS } from './registry.ts';

const SHARED = '/work/shared/data';
const headOf = (file: string): string => readFileSync(file, 'utf8').slice(0, 65536);
const tempDir = useTempDir();

describe('detection by positive signatures', () => {
  it('mini-swe-agent does not claim the look-alikes of other agents', () => {
    // Cline's api_conversation_history.json: a bare array of {role, content} messages, opening with a user message.
    const cline = join(SHARED, 'cline/gmfstu-task-1769053680585/api_conversation_history.json');
    expect(miniSweAgentImporter.detect(headOf(cline), 'api_conversation_history.json')).toBe(false);
    // An OpenCode export: an object with `info` and `messages`, but an OpenCode session's info.
    const opencode = join(SHARED, 'opencode/session__hidden-river__ses_39b709b7fffea1aT6PAuEvX6Zq.json');
    expect(miniSweAgentImporter.detect(headOf(opencode), 'session.json')).toBe(false);
  });

  it('mini-swe-agent still claims its own files, the legacy bare array included', () => {
    const legacy = join(SHARED, 'mtrouter/local.traj.json');
    expect(miniSweAgentImporter.detect(headOf(legacy), 'local.traj.json')).toBe(true);
    const modern = JSON.stringify({ info: { exit_status: 'Submitted', model_stats: {} }, messages: [] });
    expect(miniSweAgentImporter.detect(modern, 'x.json')).toBe(true);
    expect(miniSweAgentImporter.detect(JSON.stringify({ info: { id: 'ses_1', slug: 's' }, messages: [] }), 'x.json')).toBe(false);
  });
});

describe('a file no importer claims', () => {
  // A Codex rollout whose session_meta line was cut off: every other line is Codex's.
  const codexLike =
    '{"timestamp":"2026-01-01T00:00:00Z","type":"response_item","payload":{"type":"message"}}\n' +
    '{"timestamp":"2026-01-01T00:00:01Z","type":"event_msg","payload":{"type":"token_count"}}\n';

  it('names the format it resembles most, with what that format reads', () => {
    expect(closestFormat(codexLike, IMPORTERS)?.format).toBe('codex');
    expect(closestFormat('{"hello": "world"}', IMPORTERS)).toBeNull();
  });

  it('says so when named on the command line, and in the list of files a folder import did not read', async () => {
    const dir = tempDir();
    mkdirSync(join(dir, 'logs'));
    const file = join(dir, 'logs', 'rollout.jsonl');
    writeFileSync(file, codexLike);
    const db = openDatabase(join(dir, 'c.db'));
    const explicit = await importPaths(db, [file]);
    expect(explicit.files[0]?.status).toBe('rejected');
    expect(explicit.files[0]?.reason).toMatch(
      /^.+rollout\.jsonl:1: not a log RouteLens reads \(it reads .*\); closest: codex \(a Codex CLI rollout: .*session_meta/,
    );
    const folder = await importPaths(db, [join(dir, 'logs')]);
    expect(folder.ignored[0]?.reason).toMatch(/^unknown format: JSON Lines whose first record has keys .*; closest: codex \(/);
    db.close();
  });
});
