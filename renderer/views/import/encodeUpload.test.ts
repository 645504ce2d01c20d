import { describe, expect, it } from 'vitest';
import { bytesToBase64, encodeFiles, MAX_FILE_BYTES, MAX_IMPORT_BYTES, uploadProblem, type ReadProgress } from './encodeUpload.ts';
import type { PickedFile } from './pickedFiles.ts';

const MiB = 1024 * 1024;

/** A picked file that reports `size` without holding that many bytes. */
function sized(path: string, size: number): PickedFile {
  const file = new File(['x'], path);
  Object.defineProperty(file, 'size', { value: size });
  return { file, path };
}

describe('encoding uploads', () => {
  it('encodes any length in slices that join into the same base64 as encoding it whole', () => {
    for (const n of [0, 1, 2, 3, 32 * 1024 - 1, 32 * 1024, 32 * 1024 + 1, 200_001]) {
      const bytes = new Uint8Array(n).map((_, i) => (i * 131 + 7) & 0xff);
      expect(bytesToBase64(bytes)).toBe(Buffer.from(bytes).toString('base64'));
    }
  });

  it('handles a file far larger than an argument list could hold', () => {
    const bytes = new Uint8Array(8 * 1024 * 1024).fill(0xfe);
    expect(bytesToBase64(bytes)).toBe(Buffer.from(bytes).toString('base64'));
  });

  it('reads the files in order with their paths and reports progress', async () => {
    const files: PickedFile[] = [
      { file: new File(['{"a":1}\n'], 'a.jsonl'), path: 'run/a.jsonl' },
      { file: new File(['é'], 'b.txt'), path: 'b.txt' },
    ];
    const seen: ReadProgress[] = [];
    const out = await encodeFiles(files, (p) => seen.push(p));
    expect(out).toEqual([
      { path: 'run/a.jsonl', data_base64: Buffer.from('{"a":1}\n').toString('base64') },
      { path: 'b.txt', data_base64: Buffer.from('é').toString('base64') },
    ]);
    expect(seen.at(-1)).toEqual({ filesRead: 2, filesTotal: 2, bytesRead: 10, bytesTotal: 10 });
  });

  it('refuses an import too large to send, naming the sizes', () => {
    expect(uploadProblem([sized('a.jsonl', 10)])).toBeNull();
    expect(uploadProblem([sized('a.jsonl', MAX_IMPORT_BYTES / 2), sized('b.jsonl', MAX_IMPORT_BYTES / 2)])).toBeNull();
    expect(uploadProblem([sized('a.jsonl', MAX_IMPORT_BYTES / 2), sized('b.jsonl', 230 * MiB)])).toMatch(
      /add up to 410 MiB; one import from the window takes at most 360 MiB/,
    );
    expect(MAX_FILE_BYTES).toBe(300 * 1024 * 1024); // the contract's 400 MiB of base64
    expect(uploadProblem([sized('huge.eval', 310 * MiB)])).toMatch(/^huge\.eval is 310 MiB; one file imported from the window may be at most 300 MiB/);
  });
});
