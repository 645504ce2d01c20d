/**
 * Log text as one fenced markdown code block, so code (a bash command, a tool call's JSON) is highlighted by the
 * same sanitised pipeline as messages. The fence is longer than any run of backticks in the text, so no line of
 * the text can close it (CommonMark: a closing fence is at least as long as the opening one).
 */
export function codeFence(text: string, language: string): string {
  let longest = 0;
  for (const run of text.match(/`+/g) ?? []) longest = Math.max(longest, run.length);
  const fence = '`'.repeat(Math.max(3, longest + 1));
  return `${fence}${language}\n${text}\n${fence}`;
}

/** The fenced bash block a text agent (mini-swe-agent) runs; the importer uses the same pattern. */
export const BASH_BLOCK = /```bash\s*\n([\s\S]*?)\n```/g;

/** Tools whose input is a shell command, by the names the agents give them. */
export const SHELL_TOOLS = /^(bash|sh|shell|zsh|terminal|run|run_command|run_shell_command|execute_bash|exec_command|local_shell|local_shell_call|cmd|command)$/i;
const PYTHON_TOOLS = /^(python|execute_python|ipython|run_python|code_interpreter)$/i;

/**
 * How an action reads best: a response with fenced code in it (mini-swe-agent's THOUGHT then a ```bash block)
 * is markdown; a command of a shell or python tool is code; anything else is shown as logged.
 */
export function actionFormat(
  tool: string | null,
  actionType: string,
  text: string | null,
): { format: 'markdown' | 'code' | 'terminal'; language?: string } {
  if (!text) return { format: 'terminal' };
  if (/^ {0,3}(```|~~~)/m.test(text)) return { format: 'markdown' };
  const language = actionLanguage(tool, actionType, text);
  return language ? { format: 'code', language } : { format: 'terminal' };
}

/**
 * The language an action is written in, from its tool or action type; null when it is not code (a ScienceWorld
 * command, a search query) or the text carries control characters (ANSI escapes) that highlighting would hide.
 */
export function actionLanguage(tool: string | null, actionType: string, text: string): string | null {
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u0008\u000b-\u001f\u007f]/.test(text)) return null;
  const name = tool ?? actionType;
  if (SHELL_TOOLS.test(name)) return 'bash';
  if (PYTHON_TOOLS.test(name)) return 'python';
  return null;
}

/** A tool call's input is JSON when it parses as an object or array; shown indented when it was logged on one line. */
export function jsonInput(text: string): string | null {
  const trimmed = text.trim();
  if (!(trimmed.startsWith('{') || trimmed.startsWith('['))) return null;
  try {
    const value: unknown = JSON.parse(trimmed);
    return trimmed.includes('\n') ? text : JSON.stringify(value, null, 2);
  } catch {
    return null;
  }
}
