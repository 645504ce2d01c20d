/**
 * The CLI's redaction flags (shared/redact.ts), one spelling for every command that writes a file others may read:
 * `--redact REGEX` (repeatable) adds a pattern; a data export's `--redact-secrets` turns the built-in kinds on.
 */
import { parseRedactPattern, Redactor } from '../../shared/redact.ts';
import { err, UsageError, type Command } from './common.ts';

export const REDACT_OPTIONS = {
  'redact-secrets': { type: 'boolean' },
  redact: { type: 'string', multiple: true },
} as const satisfies Command['options'];

/** The user's `--redact` patterns; an invalid one is a usage error (exit 1, one line). */
export function redactPatterns(values: Record<string, unknown>): RegExp[] {
  const given = (values.redact as string[] | undefined) ?? [];
  return given.map((source) => {
    try {
      return parseRedactPattern(source);
    } catch (e) {
      throw new UsageError((e as Error).message);
    }
  });
}

/**
 * A data export's Redactor: off unless `--redact-secrets` or a `--redact` pattern is given (tables are mostly
 * numbers, and a faithful copy is what export-data promises by default).
 */
export function dataExportRedactor(values: Record<string, unknown>): Redactor | undefined {
  const extra = redactPatterns(values);
  if (values['redact-secrets'] !== true && extra.length === 0) return undefined;
  return new Redactor({ enabled: true, extra });
}

/** Tells what was redacted, on stderr after the export (stdout may carry --json). */
export function reportRedaction(redactor: Redactor | undefined): void {
  if (redactor !== undefined) err(redactor.summary());
}

/** The --help paragraph for a data export. */
export const DATA_EXPORT_REDACT_USAGE =
  '  --redact-secrets: replace API keys and tokens, private keys, env-dump secrets, bearer headers and home-folder\n' +
  '  user names in every text cell with placeholders ([redacted: OpenAI key], /home/[user]); off by default, as\n' +
  '  data exports are mostly numbers and names. --redact REGEX (repeatable) adds a pattern and turns redaction on;\n' +
  '  a leading (?i) ignores case. What was redacted, counted by kind, is printed to stderr.';
