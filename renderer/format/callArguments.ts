/**
 * A tool call's arguments as a reader wants them: one per line, name then value, a string's newlines as lines (an
 * edit's old and new text, a script), not as the `\n` of its JSON. A short value stays on its name's line; code is
 * highlighted in its language; a nested value is shown as indented JSON.
 */
import { parseObject } from './callMarkup.ts';
import { actionLanguage } from './codeFence.ts';

export interface CallArgument {
  name: string;
  /** The value as text: a string as written, anything else as JSON. */
  text: string;
  /** `inline` beside its name; `text` as its lines; `code` highlighted as `language`. */
  shape: 'inline' | 'text' | 'code';
  language?: string;
}

/** Past this a value gets lines of its own (a long path still reads on one line beside its name). */
const INLINE_CHARS = 160;
const CODE_KEYS = new Set(['code', 'script', 'source']);
const SHELL_KEYS = new Set(['command', 'cmd']);

function languageOf(tool: string, key: string): string | undefined {
  if (SHELL_KEYS.has(key)) return 'bash';
  if (CODE_KEYS.has(key)) return actionLanguage(tool, '', '') ?? 'python';
  return undefined;
}

/** Null when the input is not a JSON object (it is then shown as written). */
export function callArguments(tool: string, input: string | null | undefined): CallArgument[] | null {
  const args = parseObject(input);
  if (args === null) return null;
  return Object.entries(args).map(([name, value]): CallArgument => {
    if (typeof value === 'string') {
      const language = languageOf(tool, name);
      // eslint-disable-next-line no-control-regex
      const control = /[\u0000-\u0008\u000b-\u001f\u007f]/.test(value);
      if (language && !control && value.includes('\n')) return { name, text: value, shape: 'code', language };
      return { name, text: value, shape: value.includes('\n') || value.length > INLINE_CHARS ? 'text' : 'inline' };
    }
    if (value !== null && typeof value === 'object') {
      const json = JSON.stringify(value, null, 2);
      return json.length <= INLINE_CHARS && !json.includes('\n  {') && JSON.stringify(value).length <= 80
        ? { name, text: JSON.stringify(value), shape: 'inline' }
        : { name, text: json, shape: 'code', language: 'json' };
    }
    return { name, text: JSON.stringify(value) ?? String(value), shape: 'inline' };
  });
}
