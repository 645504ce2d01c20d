/**
 * A Cline task's api_conversation_history.json as model responses: each assistant message with its tool calls
 * joined to their results, the messages that reached the model before it (`inputs`), and what came after the last.
 *
 * Results come back in the next user message two ways: `tool_result` blocks naming the call's id (native tool
 * calling), or text blocks opening with `[read_file for 'a.cs'] Result:` (Cline's fallback when a call has no id,
 * and every result of the XML tool calls older versions parse out of the reply text). Text results are joined to
 * the unanswered calls in order, the same-named one first. Everything else a user message holds reached the model
 * as an input: the user's words (`<task>`, `<feedback>`, `<answer>`, `<user_message>`) as `user`, the extension's
 * environment details and reminders as `system`, a Roo Code condensing summary as `summary`.
 */
import type { ConversationMessage, ToolCall } from '../../shared/canonical.ts';
import type { ApiMessage, Block } from './clineTask.ts';

/** Tools Cline, Roo Code and Kilo Code define: the tags an XML tool call in reply text can open with. */
const XML_TOOLS = new Set([
  'execute_command', 'read_file', 'write_to_file', 'replace_in_file', 'apply_diff', 'insert_content', 'search_and_replace',
  'search_files', 'list_files', 'list_code_definition_names', 'codebase_search', 'browser_action', 'use_mcp_tool',
  'access_mcp_resource', 'ask_followup_question', 'attempt_completion', 'plan_mode_respond', 'new_task', 'switch_mode',
  'load_mcp_documentation', 'web_fetch', 'update_todo_list', 'condense', 'new_rule', 'report_bug', 'fetch_instructions',
]);

const RESULT_HEAD = /^\[([\w.:-]+)(?: for [^\n]*?)?\] Result:/;
const USER_WORDS = /<(task|feedback|answer|user_message)>/;
const FEEDBACK = /<feedback>\n?([\s\S]*?)\n?<\/feedback>/g;

export interface Response {
  message: ApiMessage;
  /** Index in the history. */
  index: number;
  text: string;
  reasoning: string | null;
  calls: ToolCall[];
  inputs: ConversationMessage[];
}

export interface Conversation {
  taskText: string | null;
  responses: Response[];
  final: ConversationMessage[];
}

const blocksOf = (content: ApiMessage['content']): Block[] => (typeof content === 'string' ? [{ type: 'text', text: content }] : content);

function resultText(block: Block): string {
  const c = block.content;
  if (c == null) return '';
  return typeof c === 'string' ? c : c.map((p) => p.text ?? `[${p.type}]`).join('\n');
}

/** A tag-per-parameter XML call (`<read_file>\n<path>a.cs</path>\n</read_file>`) as JSON of its parameters. */
function xmlInput(body: string): string {
  const params: Record<string, string> = {};
  for (const m of body.matchAll(/<([a-z_]+)>([\s\S]*?)<\/\1>/g)) params[m[1] as string] = (m[2] as string).trim();
  return JSON.stringify(params);
}

function xmlCalls(text: string): ToolCall[] {
  const calls: ToolCall[] = [];
  for (const m of text.matchAll(/<([a-z_]+)>([\s\S]*?)<\/\1>/g)) {
    const name = m[1] as string;
    if (XML_TOOLS.has(name)) calls.push({ id: null, name, input: xmlInput(m[2] as string), result: null, is_error: null });
  }
  return calls;
}

function responseOf(message: ApiMessage, index: number, inputs: ConversationMessage[]): Response {
  const blocks = blocksOf(message.content);
  const text = blocks.filter((b) => b.type === 'text').map((b) => b.text ?? '').join('\n').trim();
  const thinking = blocks.filter((b) => b.type === 'thinking' && b.thinking).map((b) => b.thinking as string);
  const uses = blocks.filter((b) => b.type === 'tool_use' && b.name);
  const calls: ToolCall[] = uses.length
    ? uses.map((b) => ({ id: b.id ?? null, name: b.name as string, input: b.input === undefined ? null : JSON.stringify(b.input), result: null, is_error: null }))
    : xmlCalls(text);
  return { message, index, text, reasoning: thinking.length ? thinking.join('\n') : null, calls, inputs };
}

/** Joins one user message's results to the response before it; what is not a result is returned as inputs. */
function absorb(blocks: Block[], previous: Response | undefined, into: ConversationMessage[], ts: string | null): void {
  const calls = previous?.calls ?? [];
  const open = (): ToolCall[] => calls.filter((c) => c.result == null);
  const feedback = (text: string): void => {
    // The user's words ride inside a result ("The user has provided feedback…"): kept as their prompt too.
    for (const m of text.matchAll(FEEDBACK)) into.push({ role: 'user', text: (m[1] as string).trim(), timestamp: ts });
  };
  for (const b of blocks) {
    if (b.type === 'tool_result') {
      const text = resultText(b);
      const call = calls.find((c) => c.id != null && c.id === b.tool_use_id) ?? open()[0];
      if (call) {
        call.result = text;
        call.is_error = b.is_error ?? null;
      } else into.push({ role: 'tool', text, timestamp: ts });
      feedback(text);
      continue;
    }
    if (b.type === 'image') {
      into.push({ role: 'user', text: `[image${b.source?.media_type ? `: ${b.source.media_type}` : ''}]`, timestamp: ts });
      continue;
    }
    const text = b.text ?? '';
    if (b.type !== 'text') {
      into.push({ role: 'system', text: text || `[${b.type}]`, timestamp: ts });
      continue;
    }
    const head = RESULT_HEAD.exec(text);
    if (head) {
      const waiting = open();
      const call = waiting.find((c) => c.name === head[1]) ?? waiting[0];
      if (call) call.result = text;
      else into.push({ role: 'tool', text, timestamp: ts });
      feedback(text);
      continue;
    }
    if (text.trim() === '') continue;
    into.push({ role: USER_WORDS.test(text) ? 'user' : 'system', text, timestamp: ts });
  }
}

const isoOf = (ts: number | null | undefined): string | null => {
  if (ts == null) return null;
  const d = new Date(ts);
  return Number.isNaN(d.getTime()) ? null : d.toISOString();
};

export function conversationOf(messages: ApiMessage[]): Conversation {
  const responses: Response[] = [];
  let pending: ConversationMessage[] = [];
  let taskText: string | null = null;
  for (const [index, message] of messages.entries()) {
    const ts = isoOf(message.ts);
    if (message.role === 'assistant' && message.isSummary) {
      pending.push({ role: 'summary', text: blocksOf(message.content).map((b) => b.text ?? '').join('\n'), timestamp: ts });
      continue;
    }
    if (message.role === 'assistant') {
      responses.push(responseOf(message, index, pending));
      pending = [];
      continue;
    }
    let blocks = blocksOf(message.content);
    if (responses.length === 0 && taskText === null) {
      const task = blocks.find((b) => b.type === 'text' && /^\s*<task>/.test(b.text ?? ''));
      if (task) {
        taskText = (task.text ?? '').replace(/^\s*<task>\n?/, '').replace(/\n?<\/task>\s*$/, '');
        blocks = blocks.filter((b) => b !== task);
      }
    }
    absorb(blocks, responses.at(-1), pending, ts);
  }
  return { taskText, responses, final: pending };
}

export { isoOf };
