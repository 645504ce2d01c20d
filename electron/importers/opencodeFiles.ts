/**
 * Reading OpenCode's two layouts into located messages. `opencode export` is one JSON document
 * `{info, messages: [{info, parts}]}`, read whole like every JSON document format here. The storage folder
 * (`~/.local/share/opencode/storage/`) keeps `session/<project>/<ses_id>.json`, `message/<ses_id>/<msg_id>.json` and
 * `part/<msg_id>/<prt_id>.json`; ids grow with time, so files sorted by name are in the order OpenCode reads them.
 * A bad value is reported at the file and line that hold it.
 */
import { existsSync, readdirSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { z } from 'zod';
import { decodeJson, failAt, lineOfPath, parseJson, readTextFile } from './jsonDocument.ts';
import {
  AnyPart,
  KNOWN_PART_TYPES,
  KnownPart,
  MessageInfo,
  SessionInfo,
  type Located,
  type OpenCodeMessage,
} from './opencodeRecords.ts';
import { ImportError } from './types.ts';

/** One message or part file is a few KB; a tool output OpenCode keeps whole can reach a few MB. */
const MAX_RECORD_BYTES = 64 * 1024 * 1024;

export interface OpenCodeSession {
  info: SessionInfo;
  messages: OpenCodeMessage[];
}

const Export = z.object({
  info: z.unknown(),
  messages: z.array(z.object({ info: z.unknown(), parts: z.array(z.unknown()) }).passthrough()),
});

/** True when a parsed document is an export rather than one session's info. */
export function isExport(value: unknown): boolean {
  return typeof value === 'object' && value !== null && 'info' in value && 'messages' in value;
}

/** Decodes one part; a part of a type this importer does not know is counted and left out. */
function decodePart(value: unknown, text: string, at: (string | number)[], fail: ReturnType<typeof failAt>, unknown: Map<string, number>): KnownPart | null {
  const any = decodeJson(AnyPart, value, text, at, fail);
  if (!KNOWN_PART_TYPES.has(any.type)) {
    unknown.set(any.type, (unknown.get(any.type) ?? 0) + 1);
    return null;
  }
  return decodeJson(KnownPart, value, text, at, fail);
}

export function readExport(file: string, text: string, value: unknown, unknown: Map<string, number>): OpenCodeSession {
  const fail = failAt(file);
  const doc = decodeJson(Export, value, text, [], fail);
  const info = decodeJson(SessionInfo, doc.info, text, ['info'], fail);
  const messages = doc.messages.map((m, i): OpenCodeMessage => {
    const parts: Located<KnownPart>[] = [];
    m.parts.forEach((p, j) => {
      const at = ['messages', i, 'parts', j];
      const part = decodePart(p, text, at, fail, unknown);
      if (part) parts.push({ value: part, where: () => ({ file, line: lineOfPath(text, at) }) });
    });
    return {
      info: decodeJson(MessageInfo, m.info, text, ['messages', i, 'info'], fail),
      where: () => ({ file, line: lineOfPath(text, ['messages', i, 'info']) }),
      parts,
    };
  });
  return { info, messages };
}

/** A JSON file of the storage folder, parsed; `onBytes` counts what was read for progress. */
export function readRecord(file: string, onBytes?: (bytes: number) => void): { text: string; value: unknown } {
  const text = readTextFile(file, onBytes, MAX_RECORD_BYTES);
  return { text, value: parseJson(text, failAt(file)) };
}

function jsonFiles(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { withFileTypes: true })
    .filter((e) => e.isFile() && e.name.endsWith('.json'))
    .map((e) => e.name)
    .sort()
    .map((n) => join(dir, n));
}

/** The storage folder a session file belongs to: `<storage>/session/<project>/<ses_id>.json`. */
export function storageRoot(sessionFile: string): string | null {
  const projectDir = dirname(sessionFile);
  const sessionDir = dirname(projectDir);
  return basename(sessionDir) === 'session' ? dirname(sessionDir) : null;
}

/** Reads a session of the storage folder: its messages and their parts. */
export function readStorage(
  file: string,
  text: string,
  value: unknown,
  unknown: Map<string, number>,
  onBytes?: (bytes: number) => void,
): OpenCodeSession {
  const info = decodeJson(SessionInfo, value, text, [], failAt(file));
  const root = storageRoot(file);
  const messageDir = root === null ? null : join(root, 'message', info.id);
  if (root === null || messageDir === null || !existsSync(messageDir)) {
    throw new ImportError(
      file,
      1,
      `an OpenCode session file without its storage folder: expected ${join('<storage>', 'message', info.id)} beside session/ (import the whole storage folder, or an \`opencode export\` file)`,
    );
  }
  let read = 0;
  const count = (bytes: number): void => {
    read += bytes;
    onBytes?.(read);
  };
  const messages = jsonFiles(messageDir).map((messageFile): OpenCodeMessage => {
    const m = readRecord(messageFile, count);
    const messageInfo = decodeJson(MessageInfo, m.value, m.text, [], failAt(messageFile));
    const parts: Located<KnownPart>[] = [];
    for (const partFile of jsonFiles(join(root, 'part', messageInfo.id))) {
      const p = readRecord(partFile, count);
      const part = decodePart(p.value, p.text, [], failAt(partFile), unknown);
      if (part) parts.push({ value: part, where: () => ({ file: partFile, line: 1 }) });
    }
    return { info: messageInfo, where: () => ({ file: messageFile, line: 1 }), parts };
  });
  return { info, messages };
}

/** The file of session `id` in the storage folder `root` (sessions are filed under their project). */
export function findSessionFile(root: string, id: string, nearFile: string): string | null {
  const near = join(dirname(nearFile), `${id}.json`);
  if (existsSync(near)) return near;
  const sessions = join(root, 'session');
  if (!existsSync(sessions)) return null;
  for (const project of readdirSync(sessions, { withFileTypes: true })) {
    if (!project.isDirectory()) continue;
    const candidate = join(sessions, project.name, `${id}.json`);
    if (existsSync(candidate)) return candidate;
  }
  return null;
}

