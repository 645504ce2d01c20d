/**
 * A figure as plain data: what a chart layout (shared/charts/layouts/*) computes from an analysis result,
 * and what both the window (React, renderer/charts/SceneSvg.tsx) and the exporter (electron/export/*: SVG,
 * PNG, PDF) draw. Geometry and colours are final here (the layout was given the theme), so the two
 * drawings are the same figure. No DOM, no d3 selections: d3 is used for scales and shapes only.
 *
 * Coordinates are CSS pixels in a `width × height` box, origin top left. Text is untrusted (model and run
 * names come from logs): drawers must emit it as text nodes / escaped strings, never as markup.
 */

/**
 * Where a click on a mark leads: one turn, one episode, or the episode list filtered to what the mark counts.
 * Analysis results name episodes by the log's id (ext_id) and runs by name, so layouts link with
 * `episode-ref` (resolve with `getEpisode({ ext_id, run })`, then open `turn` when given) and `episodes.runs`
 * (names; map to ids with listRuns).
 */
export type MarkLink =
  | { kind: 'turn'; episodeId: number; turn: number }
  | { kind: 'episode'; episodeId: number }
  | { kind: 'episode-ref'; ext_id: string; run?: string; turn?: number }
  /** Two episodes side by side in the split inspector (Compare's per-task points). */
  | { kind: 'pair'; a: number; b: number }
  | {
      kind: 'episodes';
      runIds?: number[];
      /** Run names (analysis results carry names). */
      runs?: string[];
      models?: string[];
      outcome?: 'success' | 'failure' | 'unknown';
      /** Shown to the user as what the list was filtered by ("gpt-5 on python turns"). */
      label: string;
    };

/** Hover details and click-through of a mark. `lines` are exact values with units and n. */
export interface MarkDatum {
  lines: string[];
  link?: MarkLink;
}

interface MarkBase {
  /** Absent: shapes are not filled (SVG's default black is never meant); text is drawn in black. */
  fill?: string;
  stroke?: string;
  strokeWidth?: number;
  opacity?: number;
  /** SVG stroke-dasharray, e.g. "4 3". */
  dash?: string;
  datum?: MarkDatum;
  /** Stable name for tests and CSS (e.g. "cell", "point", "frontier"). */
  role?: string;
  /**
   * The run, model, policy or compared side this mark draws, on every series mark and legend swatch (`data-series`
   * in the window and the SVG export): tests and screen readers tell series apart by it, not by colour.
   */
  series?: string;
}

export interface RectMark extends MarkBase {
  type: 'rect';
  x: number;
  y: number;
  width: number;
  height: number;
  rx?: number;
}

export interface LineMark extends MarkBase {
  type: 'line';
  x1: number;
  y1: number;
  x2: number;
  y2: number;
}

/** An SVG path `d` made of M, L, H, V, C, Q, A and Z commands in absolute coordinates (what d3-shape emits). */
export interface PathMark extends MarkBase {
  type: 'path';
  d: string;
}

export interface CircleMark extends MarkBase {
  type: 'circle';
  cx: number;
  cy: number;
  r: number;
}

export interface TextMark extends MarkBase {
  type: 'text';
  x: number;
  y: number;
  text: string;
  fontSize: number;
  anchor?: 'start' | 'middle' | 'end';
  /**
   * Vertical placement of `y`: the text's middle, its alphabetic baseline (default) or its top ('hanging').
   * Drawers convert to the alphabetic baseline with `alphabeticY` (shared/charts/text.ts) so every renderer agrees.
   */
  baseline?: 'middle' | 'alphabetic' | 'hanging';
  weight?: 'normal' | 'bold';
  /** Degrees, clockwise, about (x, y). */
  rotate?: number;
}

export interface GroupMark extends MarkBase {
  type: 'group';
  /** Translation applied to the children. */
  x?: number;
  y?: number;
  marks: Mark[];
}

export type Mark = RectMark | LineMark | PathMark | CircleMark | TextMark | GroupMark;

export interface Scene {
  width: number;
  height: number;
  /** Background colour of the figure (the theme's). */
  background: string;
  /** Font family used for every text mark. */
  fontFamily: string;
  /** Accessible description: what the figure shows. */
  title: string;
  marks: Mark[];
}
