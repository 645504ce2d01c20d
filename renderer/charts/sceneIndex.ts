/**
 * The pure side of drawing a Scene: numbering the marks a user can hover, focus and click (depth first, the
 * order they are drawn and the order arrow keys walk), their accessible names, and where a tooltip goes.
 */
import type { Mark, MarkDatum, Scene } from '../../shared/charts/scene.ts';
import { FIGURE_KEYS, keyAction } from '../shortcuts.ts';

export interface InteractiveMark {
  mark: Mark;
  datum: MarkDatum;
}

export interface SceneIndex {
  /** Marks with a datum, in drawing order. */
  marks: InteractiveMark[];
  /** Position in `marks` of a mark object (the drawer tags elements with it). */
  indexOf: Map<Mark, number>;
}

export function indexScene(scene: Scene): SceneIndex {
  const marks: InteractiveMark[] = [];
  const indexOf = new Map<Mark, number>();
  const walk = (list: readonly Mark[]) => {
    for (const mark of list) {
      if (mark.datum && mark.datum.lines.length > 0) {
        indexOf.set(mark, marks.length);
        marks.push({ mark, datum: mark.datum });
      }
      if (mark.type === 'group') walk(mark.marks);
    }
  };
  walk(scene.marks);
  return { marks, indexOf };
}

/** What a screen reader says for a mark: its hover lines in order. */
export function markLabel(datum: MarkDatum): string {
  return datum.lines.join('; ');
}

/** Arrow keys walk marks in drawing order; Home and End jump to the ends (FIGURE_KEYS). Null: not a key we handle. */
export function nextMarkIndex(current: number, key: string, count: number): number | null {
  if (count === 0) return null;
  switch (keyAction(FIGURE_KEYS, { key, ctrlKey: false, metaKey: false, altKey: false })) {
    case 'next':
      return Math.min(count - 1, current + 1);
    case 'prev':
      return Math.max(0, current - 1);
    case 'first':
      return 0;
    case 'last':
      return count - 1;
    default:
      return null;
  }
}

export interface Size {
  width: number;
  height: number;
}

/**
 * Top-left corner of a tooltip of `tip` size for a pointer at (x, y), all in the container's coordinates:
 * below right of the pointer, flipped left or above where it would leave the container, never off its
 * top-left corner.
 */
export function placeTooltip(x: number, y: number, tip: Size, box: Size, gap = 14): { left: number; top: number } {
  let left = x + gap;
  let top = y + gap;
  if (left + tip.width > box.width) left = x - gap - tip.width;
  if (top + tip.height > box.height) top = y - gap - tip.height;
  return { left: Math.max(0, left), top: Math.max(0, top) };
}
