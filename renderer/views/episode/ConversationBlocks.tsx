/**
 * One component per kind of conversation block (format/conversationBlocks.ts), the same for every log format: the
 * system prompt and the task, a user's prompt, text the agent injected, a compaction summary, the model's reasoning
 * (folded) and its words, a tool call with its arguments and result, a command with what it printed, the environment's
 * answer, and a launched subagent. Each block says which stored text it shows (`data-source`), so a search hit can be
 * taken to the block that matched.
 */
import { useState, type ReactNode } from 'react';
import { callArguments, type CallArgument } from '../../format/callArguments.ts';
import { fromFirstLine, type Block, type BlockKind, type Child } from '../../format/conversationBlocks.ts';
import { actionFormat, actionLanguage, jsonInput } from '../../format/codeFence.ts';
import { formatCost, formatCount } from '../../format/numbers.ts';
import { hasHit } from '../../format/searchHits.ts';
import { shellCall } from '../../format/turnBlocks.ts';
import { CopyButton } from '../../components/CopyButton.tsx';
import { HitText } from '../../components/HitText.tsx';
import { ModelChip } from '../../components/ModelChip.tsx';
import { formatHash } from '../../routing/route.ts';
import { useAppStore } from '../../store/index.ts';
import { TextBlock } from './TextBlock.tsx';

type Of<K extends BlockKind> = Extract<Block, { kind: K }>;
type Props<K extends BlockKind> = { block: Of<K>; highlight?: string };

/** The block's frame: its kind (for the role's colour) and what it shows (for search hits). */
function Frame({ block, children, testId, role }: { block: Block; children: ReactNode; testId?: string; role?: string }) {
  return (
    <div className={`cv-block cv-${block.kind}`} data-kind={block.kind} data-source={block.source} data-testid={testId} data-role={role}>
      {children}
    </div>
  );
}

const when = (timestamp: string | null) => (timestamp ? ` · ${timestamp}` : '');

/** First line of a folded text, for its summary: enough to recognise it. */
function firstLine(text: string): string {
  const line = text.split('\n').find((l) => l.trim() !== '')?.trim() ?? '';
  return line.length > 160 ? `${line.slice(0, 160)}…` : line;
}

/**
 * Text that is boilerplate or a side channel (a system prompt, the agent's injected context, reasoning): folded to its
 * first line, open when a search term is in it or the reader opens it.
 */
function Fold({
  label,
  text,
  testId,
  format,
  highlight,
  aside,
}: {
  label: string;
  text: string;
  testId: string;
  format: 'markdown' | 'terminal';
  highlight?: string;
  aside?: ReactNode;
}) {
  const [open, setOpen] = useState<boolean | null>(null);
  const shown = open ?? hasHit(text, highlight);
  const lines = text.split('\n').length;
  return (
    <details className="cv-fold" open={shown} onToggle={(e) => setOpen(e.currentTarget.open)} data-testid={`${testId}-fold`}>
      <summary>
        <span className="cv-fold-label">{label}</span>
        {aside}
        {!shown && <span className="cv-fold-preview faint">{firstLine(text)}</span>}
        <span className="cv-fold-size faint">
          {formatCount(lines)} {lines === 1 ? 'line' : 'lines'}
        </span>
      </summary>
      {/* In the page while folded: the browser's find reaches it and opens the fold. */}
      <TextBlock title={label} text={text} testId={testId} format={format} highlight={highlight} />
    </details>
  );
}

export function SystemPromptBlock({ block, highlight }: Props<'system-prompt'>) {
  return (
    <Frame block={block}>
      <Fold label="System prompt" text={block.text} testId="system-prompt" format="markdown" highlight={highlight} />
    </Frame>
  );
}

export function TaskBlock({ block, highlight }: Props<'task'>) {
  return (
    <Frame block={block}>
      {/* A task that opens with blank lines (Gemini CLI's) shows its text, not an empty first line. */}
      <TextBlock title="Task" text={fromFirstLine(block.text)} testId="turn-task" format="markdown" highlight={highlight} />
    </Frame>
  );
}

export function UserBlock({ block, highlight }: Props<'user'>) {
  return (
    <Frame block={block} testId="turn-input" role="user">
      <TextBlock title={`User${when(block.timestamp)}`} text={block.text} testId="turn-input-body" format="markdown" highlight={highlight} />
    </Frame>
  );
}

export function InjectedBlock({ block, highlight }: Props<'injected'>) {
  return (
    <Frame block={block} testId="turn-input" role="system">
      <Fold label={`Injected by the agent${when(block.timestamp)}`} text={block.text} testId="turn-input-body" format="terminal" highlight={highlight} />
    </Frame>
  );
}

export function SummaryBlock({ block, highlight }: Props<'summary'>) {
  return (
    <Frame block={block} testId="turn-input" role="summary">
      <TextBlock title={`Compaction summary${when(block.timestamp)}`} text={block.text} testId="turn-input-body" format="markdown" highlight={highlight} />
    </Frame>
  );
}

export function CannedBlock({ block, highlight }: Props<'canned'>) {
  return (
    <Frame block={block} testId="turn-input" role="assistant">
      <TextBlock title={`Assistant, no model call${when(block.timestamp)}`} text={block.text} testId="turn-input-body" format="markdown" highlight={highlight} />
    </Frame>
  );
}

export function ToolResultBlock({ block, highlight }: Props<'tool-result'>) {
  return (
    <Frame block={block} testId="turn-input" role="tool">
      <TextBlock title={`Tool result, no call of this episode${when(block.timestamp)}`} text={block.text} testId="turn-input-body" highlight={highlight} />
    </Frame>
  );
}

export function ReasoningBlock({ block, highlight }: Props<'reasoning'>) {
  return (
    <Frame block={block}>
      <Fold label="Reasoning" text={block.text} testId="turn-reasoning" format="markdown" highlight={highlight} />
    </Frame>
  );
}

export function AssistantBlock({ block, highlight }: Props<'assistant'>) {
  return (
    <Frame block={block}>
      <TextBlock title="Assistant" text={block.text} testId="turn-message" format="markdown" highlight={highlight} />
    </Frame>
  );
}

/** What a call or command printed; "none logged" and "empty" are told apart. */
function Result({ text, testId, highlight, isError }: { text: string | null | undefined; testId: string; highlight?: string; isError?: boolean }) {
  if (text == null) return <p className="faint cv-no-result">No result logged.</p>;
  if (text === '') return <p className="faint cv-no-result" data-testid={`${testId}-empty`}>Empty result.</p>;
  return <TextBlock title={isError ? 'Result · error' : 'Result'} text={text} testId={testId} highlight={highlight} />;
}

/** A call's arguments one per line, name then value; a long or multi-line value as a block of its own. */
function CallArgs({ title, args, input, highlight }: { title: string; args: CallArgument[]; input: string; highlight?: string }) {
  return (
    <section className="text-block cv-args" data-testid="tool-call-input" data-format="arguments">
      <div className="text-block-head">
        <h3>{title}</h3>
        <span className="faint text-block-size">{args.length === 0 ? 'no arguments' : args.length === 1 ? '1 argument' : `${args.length} arguments`}</span>
        <CopyButton text={input} label="Copy the arguments (JSON)" testId="tool-call-input-copy" />
      </div>
      {args.length > 0 && (
        <div className="cv-args-list" data-testid="tool-call-input-text">
          {args.map((a) =>
            a.shape === 'inline' ? (
              <div className="cv-arg" key={a.name} data-testid="tool-call-arg">
                <span className="cv-arg-name">{a.name}</span>
                <span className="cv-arg-value">
                  <HitText text={a.text} highlight={highlight} />
                </span>
              </div>
            ) : (
              <div className="cv-arg is-block" key={a.name} data-testid="tool-call-arg">
                <TextBlock title={a.name} text={a.text} testId="tool-call-arg-block" format={a.shape === 'code' ? 'code' : 'terminal'} language={a.language} highlight={highlight} />
              </div>
            ),
          )}
        </div>
      )}
    </section>
  );
}

/**
 * A call's arguments: a shell call's command as highlighted bash with its other arguments beside the name; an
 * argument object one argument a line; other JSON indented and highlighted; anything else as logged.
 */
function CallInput({ name, isError, input, highlight }: { name: string; isError: boolean; input: string | null; highlight?: string }) {
  const title = `${name}${isError ? ' · error' : ''}`;
  const shell = shellCall(name, input);
  if (shell) {
    const others = shell.others.join(' · ');
    return (
      <TextBlock
        title={title}
        text={shell.command}
        testId="tool-call-input"
        format="code"
        language={actionLanguage(name, '', shell.command) ?? undefined}
        highlight={highlight}
        aside={
          others ? (
            <span className="faint tool-call-args" title={shell.others.join('\n')} data-testid="tool-call-args">
              <HitText text={others} highlight={highlight} />
            </span>
          ) : undefined
        }
      />
    );
  }
  const args = callArguments(name, input);
  if (args !== null && input !== null) return <CallArgs title={title} args={args} input={input} highlight={highlight} />;
  const json = input === null ? null : jsonInput(input);
  const language = json !== null ? 'json' : input === null ? null : actionLanguage(name, '', input);
  return (
    <TextBlock
      title={title}
      text={json ?? input}
      testId="tool-call-input"
      format={language ? 'code' : 'terminal'}
      language={language ?? undefined}
      highlight={highlight}
    />
  );
}

export function ToolCallBlock({ block, highlight }: Props<'tool-call'>) {
  const { call } = block;
  return (
    <Frame block={block}>
      <div className={call.is_error ? 'cv-call is-error' : 'cv-call'} data-testid="tool-call">
        <div data-source="call action">
          <CallInput name={call.name} isError={!!call.is_error} input={call.input ?? null} highlight={highlight} />
        </div>
        <div data-source="result observation">
          <Result text={call.result} testId="tool-call-result" highlight={highlight} isError={!!call.is_error} />
        </div>
      </div>
    </Frame>
  );
}

/** A command the agent ran as text (a bash block, a SWE-agent command, a ScienceWorld action) and what it printed. */
export function CommandBlock({ block, highlight }: Props<'command'>) {
  const as = actionFormat(block.name, '', block.command);
  return (
    <Frame block={block}>
      <div className="cv-call" data-testid="turn-command">
        <div data-source="action">
          <TextBlock
            title={block.name}
            text={block.command}
            testId="turn-action"
            format={as.format === 'markdown' ? 'terminal' : as.format}
            language={as.language}
            highlight={highlight}
            aside={block.submit ? <span className="tag">submit</span> : undefined}
          />
        </div>
        <div data-source="observation">
          <Result text={block.result} testId="turn-observation" highlight={highlight} />
        </div>
      </div>
    </Frame>
  );
}

export function ActionBlock({ block, highlight, tool, actionType }: Props<'action'> & { tool: string | null; actionType: string }) {
  const as = actionFormat(tool, actionType, block.text);
  return (
    <Frame block={block}>
      <TextBlock title="Action" text={block.text} testId="turn-action" format={as.format} language={as.language} highlight={highlight} />
    </Frame>
  );
}

export function ObservationBlock({ block, highlight }: Props<'observation'>) {
  return (
    <Frame block={block}>
      <TextBlock title="Observation" text={block.text} testId="turn-observation" highlight={highlight} />
    </Frame>
  );
}

/** A subagent or compaction episode launched here: it opens in the inspector, counted once, as itself. */
export function SubagentBlock({ block }: Props<'subagent'>) {
  const runIds = useAppStore((s) => s.runIds);
  const c: Child = block.child;
  return (
    <Frame block={block} testId="turn-launched">
      <div className="cv-subagent" data-testid="child-episode">
        <span className="cv-subagent-label">{c.kind === 'compaction' ? 'Compaction run' : 'Launched'}</span>
        <a href={formatHash({ route: { view: 'episode', episodeId: c.id, turn: null }, runIds })} className="mono">
          {c.ext_id}
        </a>
        <span className="tag">{c.kind ?? 'child'}</span>
        {c.models.map((m) => (
          <ModelChip key={m} name={m} compact />
        ))}
        <span className="faint num">
          {c.n_turns} turns · {c.total_cost === null ? '— (cost unknown)' : formatCost(c.total_cost)}
        </span>
      </div>
    </Frame>
  );
}

/** The block's component, by kind. */
export function BlockView({ block, highlight, tool, actionType }: { block: Block; highlight?: string; tool: string | null; actionType: string }) {
  switch (block.kind) {
    case 'system-prompt':
      return <SystemPromptBlock block={block} highlight={highlight} />;
    case 'task':
      return <TaskBlock block={block} highlight={highlight} />;
    case 'user':
      return <UserBlock block={block} highlight={highlight} />;
    case 'injected':
      return <InjectedBlock block={block} highlight={highlight} />;
    case 'summary':
      return <SummaryBlock block={block} highlight={highlight} />;
    case 'canned':
      return <CannedBlock block={block} highlight={highlight} />;
    case 'tool-result':
      return <ToolResultBlock block={block} highlight={highlight} />;
    case 'reasoning':
      return <ReasoningBlock block={block} highlight={highlight} />;
    case 'assistant':
      return <AssistantBlock block={block} highlight={highlight} />;
    case 'tool-call':
      return <ToolCallBlock block={block} highlight={highlight} />;
    case 'command':
      return <CommandBlock block={block} highlight={highlight} />;
    case 'action':
      return <ActionBlock block={block} highlight={highlight} tool={tool} actionType={actionType} />;
    case 'observation':
      return <ObservationBlock block={block} highlight={highlight} />;
    case 'subagent':
      return <SubagentBlock block={block} />;
  }
}
