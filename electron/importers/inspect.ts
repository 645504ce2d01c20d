/**
 * Inspect AI eval logs: `.json` (one EvalLog with `samples[]`) and `.eval` (a ZIP of `header.json` and
 * `samples/<id>_epoch_<n>.json`), from old (`step` events) and new (span) writers. One episode per sample and
 * epoch; sample → episode is in inspectEpisode.ts, the guarded ZIP reading in evalArchive.ts.
 * Errors inside an archive member read `log.eval:1: samples/1_epoch_1.json:<line>: …`.
 */
import { closeSync, openSync, readSync } from 'node:fs';
import { z } from 'zod';
import { CanonicalEpisode, describeIssue } from '../../shared/canonical.ts';
import { EvalArchive, ZIP_MAGIC, type ArchiveLimits, DEFAULT_ARCHIVE_LIMITS } from './evalArchive.ts';
import { sampleToEpisode, type EvalContext, type SampleSource } from './inspectEpisode.ts';
import { decodeJson, decodeUtf8, failAt, lineOfPath, parseJson, readTextFile, type Fail } from './jsonDocument.ts';
import { ImportError, type ImportContext, type Importer } from './types.ts';

const EvalSpec = z.object({
  task: z.string().min(1),
  model: z.string().min(1),
  config: z.object({ epochs: z.number().int().positive().nullish() }).nullish(),
});
const LogHeader = z.object({
  version: z.number().int().nullish(),
  status: z.string().nullish(),
  eval: EvalSpec,
});
const JsonLog = LogHeader.extend({ samples: z.array(z.unknown()).nullish() });
type LogHeader = z.infer<typeof LogHeader>;

const SAMPLE_ENTRY = /^samples\/(.+)_epoch_(\d+)\.json$/;

function readMagic(file: string): string {
  const fd = openSync(file, 'r');
  try {
    const buf = Buffer.alloc(4);
    const n = readSync(fd, buf, 0, 4, 0);
    return buf.subarray(0, n).toString('latin1');
  } finally {
    closeSync(fd);
  }
}

/** Sample members in id order (numeric ids numerically), then epoch. */
function compareSampleEntries(a: string, b: string): number {
  const ma = SAMPLE_ENTRY.exec(a);
  const mb = SAMPLE_ENTRY.exec(b);
  if (!ma || !mb) return a.localeCompare(b);
  return (ma[1] ?? '').localeCompare(mb[1] ?? '', 'en', { numeric: true }) || Number(ma[2]) - Number(mb[2]);
}

const hasLaterEpoch = (sample: unknown): boolean =>
  typeof sample === 'object' && sample !== null && 'epoch' in sample && typeof sample.epoch === 'number' && sample.epoch > 1;

/** Reads one sample at a time and keeps the per-file bookkeeping (duplicates, warnings). */
class EpisodeBuilder {
  private readonly seen = new Set<string>();
  private graderCalls = 0;
  private unresolved = 0;
  private fromMessages = 0;
  private unplaced = 0;

  constructor(private readonly eval_: EvalContext) {}

  build(sample: unknown, source: SampleSource): CanonicalEpisode {
    const result = sampleToEpisode(sample, this.eval_, source);
    const checked = CanonicalEpisode.safeParse(result.episode);
    const line = (): number => lineOfPath(source.text, source.at);
    if (!checked.success) throw source.fail(line(), describeIssue(checked.error));
    const id = checked.data.episode_id;
    if (this.seen.has(id)) throw source.fail(line(), `duplicate sample "${id}"`);
    this.seen.add(id);
    this.graderCalls += result.graderCalls;
    this.unresolved += result.unresolvedAttachments;
    this.unplaced += result.unplacedMessages;
    if (checked.data.turns.length > 0 && checked.data.turns.every((t) => t.tokens == null)) this.fromMessages++;
    return checked.data;
  }

  report(ctx: ImportContext): void {
    if (this.graderCalls > 0) ctx.warn(`${this.graderCalls} grader calls kept out of the turns (model-graded scoring)`);
    if (this.unresolved > 0) ctx.warn(`${this.unresolved} attachment:// references not found in their sample's attachments; kept as is`);
    if (this.unplaced > 0) {
      ctx.warn(`${this.unplaced} message(s) of samples whose conversation has not one reply per model call kept as final messages`);
    }
    if (this.fromMessages > 0) ctx.warn(`${this.fromMessages} samples without token counts (turns taken from messages or usage not logged)`);
  }
}

function evalContext(header: LogHeader, multiEpoch: boolean, ctx: ImportContext): EvalContext {
  if (header.status && header.status !== 'success') ctx.warn(`log status is "${header.status}": samples may be missing or unfinished`);
  return {
    run: ctx.runName ?? `${header.eval.task} (${header.eval.model})`.slice(0, 300),
    task: header.eval.task.slice(0, 100),
    model: header.eval.model,
    multiEpoch: multiEpoch || (header.eval.config?.epochs ?? 1) > 1,
  };
}

async function* readJsonLog(file: string, ctx: ImportContext): AsyncGenerator<CanonicalEpisode> {
  const fail = failAt(file);
  const text = readTextFile(file, ctx.onBytes);
  const log = decodeJson(JsonLog, parseJson(text, fail), text, [], fail);
  const samples = log.samples ?? [];
  if (samples.length === 0) throw fail(lineOfPath(text, ['samples']), 'no samples in this log (written with log_samples off?)');
  const builder = new EpisodeBuilder(evalContext(log, samples.some(hasLaterEpoch), ctx));
  for (const [i, sample] of samples.entries()) yield builder.build(sample, { text, at: ['samples', i], fail });
  builder.report(ctx);
}

async function* readEvalArchive(file: string, ctx: ImportContext, limits: ArchiveLimits): AsyncGenerator<CanonicalEpisode> {
  const archive = EvalArchive.open(file, limits);
  const memberFail = (name: string): Fail => (line, reason) => new ImportError(file, 1, `${name}:${line}: ${reason}`);
  const memberJson = (name: string, bytes: Uint8Array): { text: string; value: unknown } => {
    archive.checkValues(name, bytes);
    const text = decodeUtf8(bytes, memberFail(name));
    return { text, value: parseJson(text, memberFail(name)) };
  };

  // Finished logs have header.json; a log still being written has only its journal's start.json.
  const headerName = ['header.json', '_journal/start.json'].find((n) => archive.has(n));
  if (!headerName) throw new ImportError(file, 1, 'no header.json in this .eval archive');
  const sampleNames = archive.entries
    .map((e) => e.name)
    .filter((n) => n.startsWith('samples/') && n.endsWith('.json'))
    .sort(compareSampleEntries);
  if (sampleNames.length === 0) throw new ImportError(file, 1, 'no samples in this log (written with log_samples off?)');
  archive.checkSizes([headerName, ...sampleNames]);

  let header: LogHeader | null = null;
  for await (const { name, bytes } of archive.read([headerName])) {
    const { text, value } = memberJson(name, bytes);
    header = decodeJson(LogHeader, value, text, [], memberFail(name));
  }
  if (!header) throw new ImportError(file, 1, `${headerName}: unreadable`);
  const multiEpoch = sampleNames.some((n) => Number(SAMPLE_ENTRY.exec(n)?.[2] ?? 1) > 1);
  const builder = new EpisodeBuilder(evalContext(header, multiEpoch, ctx));
  let compressed = 0;
  for await (const member of archive.read(sampleNames)) {
    const { text, value } = memberJson(member.name, member.bytes);
    yield builder.build(value, { text, at: [], fail: memberFail(member.name) });
    compressed += member.compressed;
    ctx.onBytes?.(compressed);
  }
  builder.report(ctx);
}

/** The importer with other archive limits (tests use small ones to build zip bombs cheaply). */
export function inspectImporterWith(limits: ArchiveLimits): Importer {
  return {
    format: 'inspect',
    expects: 'an Inspect AI log: a .eval ZIP archive or a .json EvalLog with "eval" and "samples"',

    detect(head, fileName) {
      if (head.startsWith(ZIP_MAGIC)) return fileName.endsWith('.eval');
      const text = head.replace(/^\uFEFF/, '').trimStart();
      // Inspect writes `version` first and `eval` (the run spec) soon after.
      return /^\{\s*"version"\s*:\s*\d+\s*,/.test(text) && /"eval"\s*:\s*\{/.test(text) && !/"trajectory_format"\s*:/.test(text);
    },

    read(file: string, ctx: ImportContext) {
      return readMagic(file) === ZIP_MAGIC ? readEvalArchive(file, ctx, limits) : readJsonLog(file, ctx);
    },
  };
}

export const inspectImporter: Importer = inspectImporterWith(DEFAULT_ARCHIVE_LIMITS);
