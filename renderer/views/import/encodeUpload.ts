/**
 * Turning picked files into the `startImport` payload: each file read whole and base64-encoded, with limits
 * checked before anything is read, so a too-large import is refused at once rather than after a minute of
 * reading.
 */
import { UploadedFile, type ApiInput } from '../../../shared/api.ts';
import { formatBytes } from '../../format/numbers.ts';
import type { PickedFile } from './pickedFiles.ts';

const MiB = 1024 * 1024;

/**
 * The most one import may carry. The payload travels as one JSON string (base64 is 4/3 of the bytes):
 * 360 MiB becomes 480 MiB, under both `routelens serve`'s 512 MiB request limit and V8's ~512 MiB string
 * limit, with room for the paths. Bigger imports go through `routelens import`, which streams from disk.
 */
export const MAX_IMPORT_BYTES = 360 * MiB;

/** The most one file may carry: the contract caps a file's base64 text, which is 4/3 of its bytes. */
export const MAX_FILE_BYTES = Math.floor(((UploadedFile.shape.data_base64.maxLength ?? 4 * MAX_IMPORT_BYTES) * 3) / 4);

/**
 * Bytes per `String.fromCharCode` call: passing a whole file as arguments overflows the stack past a few
 * hundred KiB, while a 32 KiB slice stays well under every engine's argument limit. A multiple of 3, so each
 * slice encodes to base64 without padding and the pieces simply join. The slice goes in through `apply`
 * (as an array-like), not a spread, which is 4x slower: 32 MiB takes ~0.6 s this way, ~2.1 s spread.
 */
const SLICE = 32 * 1024 - ((32 * 1024) % 3);

export function bytesToBase64(bytes: Uint8Array): string {
  const parts: string[] = [];
  for (let i = 0; i < bytes.length; i += SLICE) {
    const binary: string = Reflect.apply(String.fromCharCode, null, bytes.subarray(i, i + SLICE));
    parts.push(btoa(binary));
  }
  return parts.join('');
}

export function totalBytes(files: PickedFile[]): number {
  return files.reduce((a, f) => a + f.file.size, 0);
}

/** Why these files cannot go in one import, or null when they can. */
export function uploadProblem(files: PickedFile[]): string | null {
  const total = totalBytes(files);
  if (total > MAX_IMPORT_BYTES) {
    return `These files add up to ${formatBytes(total)}; one import from the window takes at most ${formatBytes(MAX_IMPORT_BYTES)}. Import them in parts, or run \`routelens import <folder>\`, which has no limit.`;
  }
  const big = files.find((f) => f.file.size > MAX_FILE_BYTES);
  if (big) {
    return `${big.path} is ${formatBytes(big.file.size)}; one file imported from the window may be at most ${formatBytes(MAX_FILE_BYTES)}. Run \`routelens import\` on it instead.`;
  }
  return null;
}

export type Upload = ApiInput<'startImport'>['files'][number];

export interface ReadProgress {
  filesRead: number;
  filesTotal: number;
  bytesRead: number;
  bytesTotal: number;
}

/** Reads and encodes the files one at a time (one file's buffer alive at once, besides the strings). */
export async function encodeFiles(files: PickedFile[], onProgress: (p: ReadProgress) => void): Promise<Upload[]> {
  const out: Upload[] = [];
  const bytesTotal = totalBytes(files);
  let bytesRead = 0;
  for (const [i, f] of files.entries()) {
    onProgress({ filesRead: i, filesTotal: files.length, bytesRead, bytesTotal });
    let buffer: ArrayBuffer;
    try {
      buffer = await f.file.arrayBuffer();
    } catch (err) {
      throw new Error(`${f.path}: could not be read (${err instanceof Error ? err.message : String(err)})`, { cause: err });
    }
    out.push({ path: f.path, data_base64: bytesToBase64(new Uint8Array(buffer)) });
    bytesRead += f.file.size;
  }
  onProgress({ filesRead: files.length, filesTotal: files.length, bytesRead, bytesTotal });
  return out;
}
