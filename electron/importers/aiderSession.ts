/**
 * One Aider session (from `# aider chat started at …` to the next), built line by line.
 *
 * A turn is one model reply with its `> Tokens:` line: Aider prints one after every completion of the main
 * (or, in architect mode, the editor) model, and none for the weak model's commit messages and summaries.
 * The line names no model, so each turn's model is the one the header announced last (`/model` re-announces).
 * In architect mode the first Tokens line after a user message is the architect's (main model) and the rest
 * until the next user message are the editor's (editor model, else the main model). Both are inferences,
 * noted on the turn. The reply text is what stands between the user message (or Aider's last notice: a
 * command's output, the previous turn's notices) and the Tokens line, edit blocks included; the
 * `> Applied edit to F` / `> Commit …` lines after it are what the reply did. An edit's action text is their
 * summary, so its reply goes into the turn's `message`.
 *
 * The first prompt is the task; every other user message (a later prompt, a command such as `/diff`, several typed
 * before the model answered) is an input of the next turn, or a final message after the last one. The session's
 * log total is Aider's own running `$… session` figure on the last Cost line.
 */
import { CANONICAL_SCHEMA, type CanonicalEpisode, type CanonicalTurn, type ConversationMessage } from '../../shared/canonical.ts';
import {
  APPLIED_EDIT,
  COMMIT,
  EDIT_FAILED,
  costOf,
  headerFact,
  isUserLine,
  sessionCostOf,
  tokensLine,
  type TokensLine,
} from './aiderLines.ts';

export const AIDER_FORMAT = 'aider';

/** Text kept per reply, observation or prompt: bounds memory on a pathological log. */
const MAX_TEXT = 256 * 1024;

function append(buf: string[], size: { n: number }, line: string): void {
  if (size.n > MAX_TEXT) return;
  buf.push(line);
  size.n += line.length + 1;
}

interface TurnBuild {
  inputs: ConversationMessage[];
  tokens: TokensLine | null;
  cost: number | null;
  model: string;
  role: string | null;
  notes: string[];
  reply: string;
  edits: string[];
  commits: string[];
  failed: boolean;
  notices: string[];
  noticeSize: { n: number };
  lineNo: number;
}

/** Notices Aider writes into a reply being streamed (an API error and its retry, a ^C), which then goes on. */
const STREAM_BREAK = /^>(\s*$| Retrying in | \^C again to exit| litellm\.)/;

/** `/ask …`, `/code …` and `/architect …` carry a prompt; other commands do not. */
function promptOf(message: string): string | null {
  const cmd = /^\/(\S+)\s*([\s\S]*)$/.exec(message);
  if (!cmd) return message;
  return ['ask', 'code', 'architect'].includes(cmd[1] ?? '') && cmd[2] ? cmd[2] : null;
}

export class AiderSession {
  private main: string | null = null;
  private editFormat: string | null = null;
  private editor: string | null = null;
  private version: string | null = null;
  private repo: string | null = null;
  private readonly turns: TurnBuild[] = [];
  private reply: string[] = [];
  private replySize = { n: 0 };
  private user: string[] | null = null;
  private userSize = { n: 0 };
  private task: string | null = null;
  /** User messages since the last turn, other than the task. */
  private pending: ConversationMessage[] = [];
  /** The last `$… session` figure: Aider's running total, so the last one is the session's. */
  private sessionCost: number | null = null;
  private callsSinceUser = 0;
  /** The last turn, while the lines after its Tokens line still describe it. */
  private open: TurnBuild | null = null;
  /** A Tokens line without its cost: Aider sometimes writes `Cost: …` on the next line. */
  private awaitingCost = false;
  unknownModel = 0;

  constructor(
    readonly startedAt: string,
    readonly lineNo: number,
  ) {}

  get turnCount(): number {
    return this.turns.length;
  }

  /** Feeds one line as read. */
  feed(raw: string, lineNo: number): void {
    const line = raw.trimEnd();
    if (this.awaitingCost) {
      this.awaitingCost = false;
      const cost = /^(> )?Cost: /.test(line) ? costOf(line) : undefined;
      if (cost !== undefined && this.open) {
        this.open.cost = cost;
        this.sessionCost = sessionCostOf(line) ?? this.sessionCost;
        return;
      }
    }
    if (isUserLine(raw)) {
      this.closeTurn();
      if (this.user === null) {
        this.user = [];
        this.userSize = { n: 0 };
        this.callsSinceUser = 0;
        // A reply starts after the user's message: text before it (a command's output, a reply cut off by ^C
        // before its Tokens line) is no part of the next one.
        this.reply = [];
        this.replySize = { n: 0 };
      }
      append(this.user, this.userSize, line.slice(5));
      return;
    }
    this.endUserMessage();
    if (line.startsWith('> Tokens:')) {
      this.startTurn(line, lineNo);
      return;
    }
    // Aider's notices are `> …` lines; `>>>>>>> REPLACE` closes an edit block of the reply.
    if (line === '>' || line.startsWith('> ')) {
      const fact = headerFact(line);
      if (fact) this.learn(fact);
      if (this.open) this.notice(this.open, line);
      // A reply runs from Aider's last notice to its Tokens line: plain text before a notice is a command's
      // output or the unmarked continuation of a notice, not the reply. Only a retry or ^C breaks into a reply
      // that then goes on.
      if (!STREAM_BREAK.test(line)) {
        this.reply = [];
        this.replySize = { n: 0 };
      }
      return;
    }
    // Plain text: a reply is being written.
    if (this.open && line.trim() !== '') this.closeTurn();
    append(this.reply, this.replySize, line);
  }

  private learn(fact: NonNullable<ReturnType<typeof headerFact>>): void {
    switch (fact.kind) {
      case 'main':
        this.main = fact.model;
        this.editFormat = fact.editFormat;
        // A new announcement replaces the whole model set: an editor model is announced after it if any.
        this.editor = null;
        break;
      case 'editor':
        this.editor = fact.model;
        break;
      case 'version':
        this.version = fact.version;
        break;
      case 'repo':
        this.repo = fact.path;
        break;
      default:
        break;
    }
  }

  private notice(turn: TurnBuild, line: string): void {
    const edit = APPLIED_EDIT.exec(line);
    if (edit?.[1]) turn.edits.push(edit[1]);
    const commit = COMMIT.exec(line);
    if (commit?.[1]) turn.commits.push(commit[1]);
    if (EDIT_FAILED.test(line)) turn.failed = true;
    if (line.length > 2) append(turn.notices, turn.noticeSize, line.slice(2));
  }

  private endUserMessage(): void {
    if (this.user === null) return;
    const text = this.user.join('\n').trim();
    this.user = null;
    if (text === '') return;
    const prompt = this.task === null ? promptOf(text) : null;
    if (prompt !== null) this.task = prompt;
    else this.pending.push({ role: 'user', text });
  }

  private startTurn(line: string, lineNo: number): void {
    this.closeTurn();
    const tokens = tokensLine(line);
    const cost = costOf(line);
    this.sessionCost = sessionCostOf(line) ?? this.sessionCost;
    const architect = this.editFormat === 'architect';
    const notes: string[] = [];
    let model = this.main;
    let role: string | null = null;
    if (architect) {
      const isArchitect = this.callsSinceUser === 0;
      role = isArchitect ? 'architect' : 'editor';
      if (!isArchitect) model = this.editor ?? this.main;
      notes.push(
        `model inferred from the order of the cost lines: in architect mode the first Tokens line after a user message is the architect's (main model), later ones the editor's${!isArchitect && !this.editor ? ' (no editor model announced: the main model)' : ''}`,
      );
    } else if (model) {
      notes.push('model from the session header (a Tokens line names none)');
    }
    if (!model) {
      this.unknownModel++;
      notes.push('no model announced in this session: model unknown');
    }
    if (!tokens) notes.push('Tokens line not in a known shape: tokens unknown');
    this.callsSinceUser++;
    const turn: TurnBuild = {
      inputs: this.pending,
      tokens,
      cost: cost ?? null,
      model: model ?? 'unknown',
      role,
      notes,
      reply: this.reply.join('\n').trim(),
      edits: [],
      commits: [],
      failed: false,
      notices: [],
      noticeSize: { n: 0 },
      lineNo,
    };
    this.pending = [];
    this.reply = [];
    this.replySize = { n: 0 };
    this.turns.push(turn);
    this.open = turn;
    this.awaitingCost = cost === undefined;
  }

  private closeTurn(): void {
    this.open = null;
    this.awaitingCost = false;
  }

  /** `aider/<project>` when the header names the repository by an absolute path; `aider` otherwise. */
  get project(): string | null {
    if (!this.repo || !this.repo.startsWith('/')) return null;
    const parts = this.repo.replace(/\/\.git\/?$/, '').split('/').filter(Boolean);
    return parts.at(-1) ?? null;
  }

  toEpisode(episodeId: string, runName: string | undefined): CanonicalEpisode {
    this.endUserMessage();
    const turns: CanonicalTurn[] = this.turns.map((b, t) => {
      const edited = b.edits.length > 0;
      const searchReplace = /^<{7} SEARCH$/m.test(b.reply);
      const commit = b.commits.length ? ` (commit ${b.commits.join(', ')})` : '';
      const action: CanonicalTurn['action'] = edited
        ? { type: 'edit', tool: 'edit', text: `edit ${b.edits.join(', ')}${commit}` }
        : searchReplace
          ? { type: 'edit', tool: 'edit', text: 'edit (not applied)' }
          : { type: 'message', tool: null, text: b.reply };
      const tk = b.tokens;
      return {
        t,
        model: b.model,
        role: b.role,
        action,
        // An edit's action text is its summary: the reply that made it (SEARCH/REPLACE blocks and all) is kept here.
        message: action.type !== 'message' && b.reply !== '' ? b.reply : null,
        observation: b.notices.length ? b.notices.join('\n') : null,
        inputs: b.inputs.length ? b.inputs : null,
        tokens: tk ? { in: tk.sent, out: tk.received, cached: tk.cacheHit, cache_write: tk.cacheWrite } : null,
        cost_usd: b.cost,
        notes: b.notes.length ? b.notes : null,
        errors: b.failed ? [{ type: 'edit_format_error', severity: 'medium' }] : null,
      };
    });
    const project = this.project;
    return {
      schema: CANONICAL_SCHEMA,
      run: runName ?? (project ? `${AIDER_FORMAT}/${project}` : AIDER_FORMAT),
      episode_id: episodeId,
      task: { id: episodeId, type: AIDER_FORMAT, category: project, text: this.task },
      outcome: {},
      agent: { name: 'aider', version: this.version },
      started_at: this.startedAt.replace(' ', 'T'),
      log_totals: this.sessionCost === null ? null : { source: 'the "$… session" total on the last Cost line', cost_usd: this.sessionCost },
      final_messages: this.pending.length ? this.pending : null,
      turns,
    };
  }
}
