/**
 * The episode read top to bottom as it happened, in one scrolling column: the system prompt and the task, then every
 * turn (its messages, its response, its calls and their results), then the messages after the last response.
 * Virtualised by section, since agents run for thousands of turns; a long episode's turns come a page at a time as
 * they are reached (useEpisodeTurns).
 *
 * The turn stays the unit of the timeline, the cost and the keys. The turn in view is the current one: scrolling by
 * hand moves the timeline and the list (`onCurrent`), and a key or a click elsewhere scrolls the turn to the top. A
 * search that opened the episode lands on the block that matched (`hitAt`, a block's `data-source`).
 */
import { useVirtualizer } from '@tanstack/react-virtual';
import { useCallback, useEffect, useLayoutEffect, useMemo, useRef } from 'react';
import type { EpisodeDetail, TurnDetail } from '../../../shared/api.ts';
import { OwnsHitScroll } from '../../components/useScrollToFirstHit.ts';
import { closingBlocks, openingBlocks, type Child } from '../../format/conversationBlocks.ts';
import { estimateTurnHeight, sectionOfTurn, turnAtLine } from './conversationScroll.ts';
import { BlockView } from './ConversationBlocks.tsx';
import { TurnDetailPanel } from './TurnDetailPanel.tsx';
import type { TurnView } from './TurnReading.tsx';
import type { EpisodeTurns, TurnLine } from './useEpisodeTurns.ts';
import './conversation.css';

/** Scroll events this soon after the reader's own input (wheel, touch, a drag of the scrollbar, a paging key) are theirs. */
const USER_SCROLL_MS = 700;
const PAGING_KEYS = new Set(['PageDown', 'PageUp', ' ', 'Spacebar']);
/** How long a turn scrolled to is held at the top while the sections around it settle. */
const PIN_MS = 3000;

export function ConversationView({
  detail,
  lines,
  turns,
  current,
  onCurrent,
  highlight,
  hitAt,
  view,
}: {
  detail: EpisodeDetail;
  lines: readonly TurnLine[];
  turns: Pick<EpisodeTurns, 'at' | 'want'>;
  current: number;
  /** The reader scrolled another turn into view. */
  onCurrent(index: number): void;
  highlight?: string;
  /** Which stored text a search matched (`action`, `observation`, `input:N`, `final:N`). */
  hitAt?: string;
  view: TurnView;
}) {
  const scrollRef = useRef<HTMLDivElement>(null);
  const episode = detail.episode;
  const opening = useMemo(() => openingBlocks(episode), [episode]);
  const closing = useMemo(() => closingBlocks(detail.final_messages), [detail.final_messages]);
  const launchedAt = useMemo(() => {
    const out = new Map<number, Child[]>();
    for (const c of detail.children) if (c.parent_t !== null) out.set(c.parent_t, [...(out.get(c.parent_t) ?? []), c]);
    return out;
  }, [detail.children]);
  const count = lines.length + 1 + (closing.length > 0 ? 1 : 0);
  const { at, want } = turns;

  // A section's guessed height, fixed once guessed: a guess that changed when a page of turns arrived would move
  // every section after it, and the turn being read with them.
  const guesses = useRef(new Map<number, number>());
  const guess = (i: number): number => {
    let h = guesses.current.get(i);
    if (h === undefined) {
      h = i === 0 ? (opening.length ? 320 : 0) : i > lines.length ? 120 : estimateTurnHeight(at(i - 1));
      guesses.current.set(i, h);
    }
    return h;
  };
  const virtualizer = useVirtualizer({
    count,
    getScrollElement: () => scrollRef.current,
    estimateSize: guess,
    overscan: 2,
    getItemKey: (i) => (i === 0 ? 'opening' : i > lines.length ? 'closing' : `t${i - 1}`),
  });
  // A section above the column's top that grows or shrinks (drawn, a page arrived) keeps the text in view where it
  // is; the section being read (across the top) keeps its start, so a block folded in it stays in view.
  virtualizer.shouldAdjustScrollPositionOnItemSizeChange = (item, _delta, instance) => item.end <= (instance.scrollOffset ?? 0);
  const items = virtualizer.getVirtualItems();
  const firstShown = items[0]?.index ?? 0;
  const lastShown = items[items.length - 1]?.index ?? 0;
  useEffect(() => want(Math.max(0, firstShown - 1), Math.max(0, lastShown - 1)), [want, firstShown, lastShown]);

  // Sections are placed with `top`, not a transform: a turn's sticky head would be placed as if its section were
  // untransformed (at the top of the column), and stick at the section's end.

  // What the reader did last, to tell their scrolling from ours.
  const userInput = useRef(0);
  const dragging = useRef(false);
  const fromScroll = useRef<number | null>(null);
  const landing = useRef<{ section: number; at?: string } | null>(null);
  // A turn the view scrolled to stays at the top while what is around it is drawn and its page arrives (heights
  // settle then, after the virtualiser's own correction has ended), until the reader scrolls.
  const pinned = useRef<{ section: number; until: number } | null>(null);

  const onScroll = useCallback(() => {
    const el = scrollRef.current;
    if (!el || (!dragging.current && performance.now() - userInput.current > USER_SCROLL_MS)) return;
    landing.current = null;
    pinned.current = null;
    const turn = turnAtLine(
      { top: el.scrollTop, height: el.clientHeight, scrollHeight: el.scrollHeight },
      (offset) => virtualizer.getVirtualItemForOffset(offset)?.index,
      lines.length,
    );
    if (turn === null || turn === current) return;
    fromScroll.current = turn;
    onCurrent(turn);
  }, [virtualizer, lines.length, current, onCurrent]);

  useEffect(() => {
    const el = scrollRef.current;
    if (!el) return;
    // The reader takes over: nothing is held in place for them any more.
    const input = () => {
      userInput.current = performance.now();
      pinned.current = null;
      landing.current = null;
    };
    const key = (e: KeyboardEvent) => PAGING_KEYS.has(e.key) && input();
    const down = (e: PointerEvent) => {
      // A press on the scrollbar (the column itself, not its content) drags it; a click in the text (a fold, a
      // "Show less") moves the text, not the reader.
      if (e.target !== el) return;
      dragging.current = true;
      input();
    };
    const up = () => (dragging.current = false);
    el.addEventListener('wheel', input, { passive: true });
    el.addEventListener('touchmove', input, { passive: true });
    el.addEventListener('keydown', key);
    el.addEventListener('pointerdown', down);
    window.addEventListener('pointerup', up);
    el.addEventListener('scroll', onScroll, { passive: true });
    return () => {
      el.removeEventListener('wheel', input);
      el.removeEventListener('touchmove', input);
      el.removeEventListener('keydown', key);
      el.removeEventListener('pointerdown', down);
      window.removeEventListener('pointerup', up);
      el.removeEventListener('scroll', onScroll);
    };
  }, [onScroll]);

  // A turn chosen elsewhere (a key, the timeline, the list, a link) is scrolled to its top; the first turn with the
  // episode's opening above it. With a search, to its hit.
  const episodeId = episode.id;
  useLayoutEffect(() => {
    if (fromScroll.current === current) return;
    fromScroll.current = null;
    if (current === 0) virtualizer.scrollToOffset(0);
    else virtualizer.scrollToIndex(sectionOfTurn(current), { align: 'start' });
    landing.current = highlight?.trim() ? { section: hitAt?.startsWith('final:') ? lines.length + 1 : sectionOfTurn(current), at: hitAt } : null;
    pinned.current = landing.current ? null : { section: current === 0 ? 0 : sectionOfTurn(current), until: performance.now() + PIN_MS };
  }, [current, episodeId, virtualizer, highlight, hitAt, lines.length]);

  useEffect(() => {
    const pin = pinned.current;
    if (!pin) return;
    if (performance.now() > pin.until) {
      pinned.current = null;
      return;
    }
    const target = virtualizer.getOffsetForIndex(pin.section, 'start')?.[0];
    if (target !== undefined && Math.abs((virtualizer.scrollOffset ?? 0) - target) > 1) virtualizer.scrollToIndex(pin.section, { align: 'start' });
  });

  // The hit is marked once its section is drawn (and a folded block holding it opened): bring it to the middle.
  useEffect(() => {
    if (!landing.current) return;
    let frame = 0;
    let tries = 0;
    const look = () => {
      const target = landing.current;
      const el = scrollRef.current;
      if (!target || !el || tries++ > 120) return;
      const section = el.querySelector(`[data-section="${target.section}"]`);
      const marks = section ? [...section.querySelectorAll('mark.search-hit')] : [];
      const mark = marks.find((m) => target.at !== undefined && m.closest(`[data-source~="${CSS.escape(target.at)}"]`)) ?? marks[0];
      // Wait a few frames after the section shows: the virtualiser settles its scroll first.
      if (!mark || tries < 4) {
        frame = requestAnimationFrame(look);
        return;
      }
      landing.current = null;
      mark.scrollIntoView({ block: 'center' });
    };
    frame = requestAnimationFrame(look);
    return () => cancelAnimationFrame(frame);
  });

  return (
    <OwnsHitScroll>
      <div className="conversation" ref={scrollRef} data-testid="turn-detail-scroll" tabIndex={-1} aria-label="Conversation">
        <div className="conversation-inner" style={{ height: virtualizer.getTotalSize() }}>
          {items.map((item) => {
            const i = item.index;
            return (
              <div key={item.key} className="cv-item" data-index={i} data-section={i} ref={virtualizer.measureElement} style={{ top: item.start }}>
                {i === 0 ? (
                  opening.length > 0 && (
                    <section className="cv-opening" data-testid="conversation-opening" aria-label="Before the first turn">
                      {opening.map((b) => (
                        <BlockView key={b.kind} block={b} highlight={highlight} tool={null} actionType="" />
                      ))}
                    </section>
                  )
                ) : i > lines.length ? (
                  <section className="cv-closing" data-testid="conversation-closing" aria-label="After the last turn">
                    <h2 className="cv-closing-title">After the last turn</h2>
                    {closing.map((b, k) => (
                      <BlockView key={k} block={b} highlight={highlight} tool={null} actionType="" />
                    ))}
                  </section>
                ) : (
                  <TurnSection
                    height={guess(i)}
                    index={i - 1}
                    turn={at(i - 1)}
                    line={lines[i - 1]}
                    previousModel={i > 1 ? (lines[i - 2]?.model ?? null) : null}
                    count={lines.length}
                    launched={launchedAt}
                    episode={episode}
                    highlight={highlight}
                    view={view}
                    current={i - 1 === current}
                  />
                )}
              </div>
            );
          })}
        </div>
      </div>
    </OwnsHitScroll>
  );
}

function TurnSection({
  height,
  index,
  turn,
  line,
  launched,
  ...rest
}: {
  /** While its page is on its way, the section holds the height guessed for it. */
  height: number;
  index: number;
  turn: TurnDetail | undefined;
  line: TurnLine | undefined;
  previousModel: string | null;
  count: number;
  launched: ReadonlyMap<number, Child[]>;
  episode: EpisodeDetail['episode'];
  highlight?: string;
  view: TurnView;
  current: boolean;
}) {
  if (!turn) {
    return (
      <div className="view-loading cv-turn-loading" data-testid="turn-loading" style={{ minHeight: height }}>
        Loading turn {line?.t ?? index}…
      </div>
    );
  }
  return <TurnDetailPanel turn={turn} launched={launched.get(turn.t)} {...rest} />;
}
