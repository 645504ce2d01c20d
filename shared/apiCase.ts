/** Sharing a case as one HTML file (issue 37): the window asks the core for the file it then saves. */
import { z } from 'zod';
import { CompareInput } from './apiCompare.ts';

const id = z.number().int().positive();

export const ShareCaseRequest = z.object({
  /** Exactly one of: an episode (with its subagents), a run (its summary and sessions), a comparison as Compare asks it. */
  episode: id.optional(),
  run: id.optional(),
  compare: CompareInput.optional(),
  /** Secrets, tokens and home-folder user names become placeholders unless false. */
  redact: z.boolean().default(true),
});
export type ShareCaseRequest = z.input<typeof ShareCaseRequest>;

export const ShareCaseResult = z.object({
  filename: z.string(),
  html: z.string(),
  /** What was redacted, in words (the file's footer says the same). */
  redaction: z.string(),
});
export type ShareCaseResult = z.infer<typeof ShareCaseResult>;

export const caseContract = {
  shareCase: { input: ShareCaseRequest, output: ShareCaseResult },
} as const;
