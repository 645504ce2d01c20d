/**
 * The built-in history encoder `hash-1024` (DESIGN §6): feature-hashed unigrams and bigrams of the serialised
 * history, log tf, L2-normalised, 1024-d, followed by the STRUCTURED_FEATURES of weights.ts.
 *
 *   tokens   maximal runs of letters, digits and `_` (Unicode-aware, lower-cased); everything else separates.
 *            Bigrams are adjacent tokens within one segment (historyText.ts), never across segments.
 *   key      FNV-1a over the token's lower-cased UTF-16 code units; a bigram's key mixes its two keys.
 *   recent   the n-grams of the most recent turn (SerialisedHistory.recent) are counted a second time with
 *            their keys XOR RECENT_SALT: the same words in their own namespace, so the features say what the
 *            last observation said, not only what the window as a whole contains.
 *   model    the previous turn's model name, once, salted with MODEL_SALT (DESIGN §6's "previous model"
 *            feature: which model the agent is on tells the estimator about the policy that logged it).
 *   bucket   murmur3 fmix32(key) mod 1024;   sign   top bit of fmix32(key ^ SIGN_SALT) (a second hash), ±1.
 *   value    v_j = Σ sign·tf over the n-grams in bucket j (exact integers, so counts of segments add and
 *            subtract: the dataset builder slides the history window turn by turn without re-reading text);
 *            feature_j = sign(v_j)·log(1 + |v_j|), then the 1024 features are scaled to unit L2 norm.
 *
 * Speed (2-core container, Node 20): ~80 MB of history text per second through `encodeHashHistory`; the
 * dataset's incremental path reads each turn's text once (measured figures in hashEncoder.test.ts notes).
 */
import { STRUCTURED_DIM, structuredFeatures, type SerialisedHistory, type StructuredInput } from './historyText.ts';
import { fmix32 } from '../../shared/random.ts';

export const HASH_ENCODER = 'hash-1024';
export const HASH_DIM = 1024;
const HASH_MASK = HASH_DIM - 1;
/** history features per turn: 1024 hashed text features, then the structured ones. */
export const HASH_HISTORY_DIM = HASH_DIM + STRUCTURED_DIM;

const FNV_OFFSET = 0x811c9dc5;
const FNV_PRIME = 0x01000193;
const SIGN_SALT = 0x5bd1e995;
const BIGRAM_SALT = 0x27d4eb2f;
/** Key salt of the most recent turn's n-grams. */
export const RECENT_SALT = 0x165667b1;
/** Key salt of the previous turn's model name. */
export const MODEL_SALT = 0x3c6ef372;

/** 1 for a word character (Unicode letter or number, `_`; surrogate halves count so astral letters stay in words). */
let WORD: Uint8Array | undefined;
/** Lower-case code unit per BMP code unit. */
let LOWER: Uint16Array | undefined;

function tables(): { word: Uint8Array; lower: Uint16Array } {
  if (!WORD || !LOWER) {
    // Built once (~30 ms): a table lookup per character is what keeps tokenising at tens of MB/s.
    const word = new Uint8Array(65536);
    const lower = new Uint16Array(65536);
    const isWord = /[\p{L}\p{N}_]/u;
    for (let c = 0; c < 65536; c++) {
      lower[c] = c;
      if (c >= 0xd800 && c <= 0xdfff) {
        word[c] = 1;
        continue;
      }
      const ch = String.fromCharCode(c);
      if (c < 128 ? (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 95 : isWord.test(ch)) {
        word[c] = 1;
        const lc = ch.toLowerCase();
        if (lc.length === 1) lower[c] = lc.charCodeAt(0);
      }
    }
    WORD = word;
    LOWER = lower;
  }
  return { word: WORD, lower: LOWER };
}

function addKey(key: number, counts: Int32Array, sign: number): void {
  const bucket = fmix32(key) & HASH_MASK;
  counts[bucket] = (counts[bucket] as number) + (fmix32(key ^ SIGN_SALT) >>> 31 ? -sign : sign);
}

/**
 * Adds the signed term frequencies of every unigram and bigram of `text` to `counts` (length HASH_DIM);
 * `sign` −1 removes a segment added before; `salt` (RECENT_SALT) puts the n-grams in another namespace.
 */
export function addSegment(text: string, counts: Int32Array, sign: 1 | -1 = 1, salt = 0): void {
  const { word, lower } = tables();
  const n = text.length;
  let prev = -1; // key of the previous token in this segment; -1 before the first
  let i = 0;
  while (i < n) {
    let c = text.charCodeAt(i);
    if (!word[c]) {
      i++;
      continue;
    }
    let h = FNV_OFFSET;
    do {
      h = Math.imul(h ^ (lower[c] as number), FNV_PRIME);
      i++;
      c = i < n ? text.charCodeAt(i) : 0;
    } while (i < n && word[c]);
    const key = (h ^ salt) >>> 0;
    addKey(key, counts, sign);
    if (prev >= 0) addKey((Math.imul(fmix32(prev), 0x9e3779b1) ^ key ^ BIGRAM_SALT) >>> 0, counts, sign);
    prev = key;
  }
}

/** sign·log(1+|v|) per bucket, scaled to unit L2 norm, into out[offset … offset+1023] (zeros for no text). */
export function countsToFeatures(counts: Int32Array, out: Float32Array, offset: number): void {
  let sq = 0;
  for (let j = 0; j < HASH_DIM; j++) {
    const v = counts[j] as number;
    if (v !== 0) {
      const f = Math.log1p(Math.abs(v));
      sq += f * f;
    }
  }
  const scale = sq > 0 ? 1 / Math.sqrt(sq) : 0;
  for (let j = 0; j < HASH_DIM; j++) {
    const v = counts[j] as number;
    out[offset + j] = v === 0 ? 0 : (v > 0 ? Math.log1p(v) : -Math.log1p(-v)) * scale;
  }
}

/**
 * The same features in sparse form, appended to growable buffers: returns the number of non-zeros written.
 * Used by the dataset, where a dense 1024-d row per turn would take 2 GB at the paper's 515k turns.
 */
export function countsToSparse(counts: Int32Array, indices: Uint16Array, values: Float32Array, at: number): number {
  let sq = 0;
  let nnz = 0;
  for (let j = 0; j < HASH_DIM; j++) {
    const v = counts[j] as number;
    if (v !== 0) {
      const f = Math.log1p(Math.abs(v));
      sq += f * f;
      nnz++;
    }
  }
  if (nnz === 0) return 0;
  const scale = 1 / Math.sqrt(sq);
  let k = at;
  for (let j = 0; j < HASH_DIM; j++) {
    const v = counts[j] as number;
    if (v === 0) continue;
    indices[k] = j;
    values[k] = (v > 0 ? Math.log1p(v) : -Math.log1p(-v)) * scale;
    k++;
  }
  return nnz;
}

/** Non-zero buckets of `counts` (an upper bound on what countsToSparse writes). */
export function countNonZero(counts: Int32Array): number {
  let nnz = 0;
  for (let j = 0; j < HASH_DIM; j++) if (counts[j] !== 0) nnz++;
  return nnz;
}

const scratch = new Int32Array(HASH_DIM);

/**
 * The 1024 hashed text features of a history's segments, its most recent turn's (salted) and its previous
 * model's name (salted) into out[offset …].
 */
export function encodeHashText(
  segments: readonly string[],
  out: Float32Array,
  offset: number,
  recent: readonly string[] = [],
  previousModel: string | null = null,
): void {
  scratch.fill(0);
  for (const s of segments) addSegment(s, scratch);
  for (const s of recent) addSegment(s, scratch, 1, RECENT_SALT);
  if (previousModel) addSegment(previousModel, scratch, 1, MODEL_SALT);
  countsToFeatures(scratch, out, offset);
}

/** The full `hash-1024` history vector (HASH_HISTORY_DIM values) into out[offset …]. */
export function encodeHashHistory(
  history: Pick<SerialisedHistory, 'segments' | 'recent' | 'previousModel'>,
  structured: StructuredInput,
  out: Float32Array,
  offset = 0,
): void {
  encodeHashText(history.segments, out, offset, history.recent, history.previousModel);
  structuredFeatures(structured, out, offset + HASH_DIM);
}
