/**
 * The trainer's rows in parts (issue 19: training in bounded memory). A SQLite database's training set is one
 * part held in memory (`wholeSet`); a ClickHouse store's rows are read once, encoded part by part and spilled
 * to files (`SpilledParts`), so an epoch holds one part, the validation rows and the network, whatever the
 * store's size. The trainer (train.ts `trainOnParts`) shuffles the order of the parts each epoch, then the
 * rows within the part it has loaded.
 */
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { splitRows, type BuiltRows, type TrainingRows } from './dataset.ts';

export interface RowsOf {
  data: TrainingRows;
  rows: Int32Array;
}

export interface TrainingPart {
  data: TrainingRows;
  /** The part's training rows, in their order. */
  train: Int32Array;
  /** The list the trainer shuffles in place and walks in batches (kept between epochs while the part stays in memory). */
  order: Int32Array;
}

export interface TrainingParts {
  /** What sizes the network: dimensions, the candidate pool and its features. */
  shape: Pick<TrainingRows, 'historyDim' | 'textDim' | 'models' | 'modelFeatures'>;
  /** Training rows in each part, in part order. */
  trainRows: readonly number[];
  part(i: number): TrainingPart;
  /** The held-out rows (possibly none). */
  validation: RowsOf;
  /** What early stopping measures: the validation rows, or where there are none the training rows. */
  stopOn: RowsOf;
  /** Mean target over the training rows (the network's initial output bias). */
  targetMean: number;
}

/** A whole in-memory training set as one part: the trainer walks it exactly as it always has. */
export function wholeSet(data: TrainingRows): TrainingParts {
  const { train, validation } = splitRows(data);
  const order = train.slice();
  let targetMean = 0;
  for (const r of train) targetMean += data.target[r] as number;
  targetMean /= train.length;
  return {
    shape: data,
    trainRows: [train.length],
    part: () => ({ data, train, order }),
    validation: { data, rows: validation },
    // Without validation rows (a tiny log) the training rows stand in, so early stopping still has a signal.
    stopOn: { data, rows: validation.length ? validation : train },
    targetMean,
  };
}

/** The arrays of a part file, in this order; the counts in its header say their lengths. */
const FIELDS = ['textIndptr', 'textIndices', 'textValues', 'structured', 'model', 'target'] as const;

/**
 * Training parts written to a temporary folder as they are built and read back one at a time. A part file is
 * a 16-byte header (rows, non-zeros, structured values, 0) and the arrays of FIELDS, each padded to 4 bytes.
 */
export class SpilledParts implements TrainingParts {
  readonly dir: string;
  readonly trainRows: number[] = [];
  validation: RowsOf;
  stopOn: RowsOf;
  targetMean = Number.NaN;
  private targetSum = 0;

  constructor(
    readonly shape: TrainingParts['shape'],
    parent = tmpdir(),
  ) {
    this.dir = mkdtempSync(join(parent, 'routelens-train-'));
    const none: TrainingRows = {
      ...shape, rows: 0, textIndptr: new Int32Array(1), textIndices: new Uint16Array(0), textValues: new Float32Array(0),
      structured: new Float32Array(0), model: new Int32Array(0), target: new Float32Array(0), validation: new Uint8Array(0),
    };
    this.validation = { data: none, rows: new Int32Array(0) };
    this.stopOn = this.validation;
  }

  /** Spills a part of training rows (every row of `rows` trains). */
  add(rows: BuiltRows): void {
    if (rows.rows === 0) return;
    const fd = openSync(this.file(this.trainRows.length), 'w');
    try {
      writeSync(fd, new Uint8Array(Int32Array.of(rows.rows, rows.textIndices.length, rows.structured.length, 0).buffer));
      for (const f of FIELDS) {
        const a = rows[f];
        writeSync(fd, new Uint8Array(a.buffer, a.byteOffset, a.byteLength));
        if (a.byteLength % 4) writeSync(fd, new Uint8Array(4 - (a.byteLength % 4)));
      }
    } finally {
      closeSync(fd);
    }
    for (let r = 0; r < rows.rows; r++) this.targetSum += rows.target[r] as number;
    this.trainRows.push(rows.rows);
    this.targetMean = this.targetSum / this.trainRows.reduce((a, b) => a + b, 0);
  }

  /** Validation rows gathered after the parts were spilled. */
  setValidation(rows: TrainingRows): void {
    this.validation = { data: rows, rows: Int32Array.from({ length: rows.rows }, (_x, i) => i) };
    this.stopOn = this.validation;
  }

  part(i: number): TrainingPart {
    const bytes = readFileSync(this.file(i));
    // A Buffer may sit at any offset of a shared pool: copy into an ArrayBuffer of its own, 4-byte aligned.
    const buf = new ArrayBuffer(bytes.byteLength);
    new Uint8Array(buf).set(bytes);
    const [rows, nonZeros, structuredLength] = new Int32Array(buf, 0, 4) as unknown as [number, number, number];
    let at = 16;
    const take = <A>(make: (b: ArrayBuffer, offset: number, n: number) => A, n: number, bytesPer: number): A => {
      const a = make(buf, at, n);
      at += Math.ceil((n * bytesPer) / 4) * 4;
      return a;
    };
    const textIndptr = take((b, o, n) => new Int32Array(b, o, n), rows + 1, 4);
    const textIndices = take((b, o, n) => new Uint16Array(b, o, n), nonZeros, 2);
    const textValues = take((b, o, n) => new Float32Array(b, o, n), nonZeros, 4);
    const structured = take((b, o, n) => new Float32Array(b, o, n), structuredLength, 4);
    const model = take((b, o, n) => new Int32Array(b, o, n), rows, 4);
    const target = take((b, o, n) => new Float32Array(b, o, n), rows, 4);
    const data: TrainingRows = {
      ...this.shape, rows, textIndptr, textIndices, textValues, structured, model, target, validation: new Uint8Array(rows),
    };
    const train = Int32Array.from({ length: rows }, (_x, r) => r);
    return { data, train, order: train.slice() };
  }

  /** Removes the folder and its part files. */
  remove(): void {
    rmSync(this.dir, { recursive: true, force: true });
  }

  private file(i: number): string {
    return join(this.dir, `part-${i}.bin`);
  }
}
