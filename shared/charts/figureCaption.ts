/**
 * What an exported figure says about itself, so a PNG pasted into a paper or a chat still tells what it is:
 * a caption band on top of the figure (its title, the runs it draws and the day it was exported) and a file
 * name made of the same facts (`switch-cost_sw-mtrouter+uno-sim_2026-11-24.png`). Used by every figure
 * export: the core's (analyses, `routelens export`) and the window's (policy lab, compare).
 */
import type { Mark, Scene } from './scene.ts';
import { fitText } from './text.ts';

export interface FigureCaption {
  /** What the figure shows ("Switches vs cost"). */
  title: string;
  /** Run names; empty means every run of the database. */
  runs: readonly string[];
  /** The export day, YYYY-MM-DD (exportDate). */
  date: string;
}

/** Runs named in a caption before the rest are counted. */
const RUNS_NAMED = 4;
/** Runs named in a file name before the rest are counted. */
const RUNS_IN_NAME = 3;

/** Today in the user's time zone, as YYYY-MM-DD (the day they will look for). */
export function exportDate(now: Date = new Date()): string {
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${now.getFullYear()}-${pad(now.getMonth() + 1)}-${pad(now.getDate())}`;
}

/** "sw-mtrouter, uno-sim and 3 more runs", "all runs". */
export function runsLabel(runs: readonly string[]): string {
  if (runs.length === 0) return 'all runs';
  if (runs.length === 1) return `run ${runs[0]}`;
  if (runs.length <= RUNS_NAMED) return `runs ${runs.slice(0, -1).join(', ')} and ${runs[runs.length - 1]}`;
  return `runs ${runs.slice(0, RUNS_NAMED - 1).join(', ')} and ${runs.length - (RUNS_NAMED - 1)} more`;
}

interface CaptionStyle {
  text: string;
  mutedText: string;
  fontSize: number;
}

const PAD_X = 12;
const PAD_TOP = 10;
const GAP = 4;
const PAD_BOTTOM = 10;

/** Height of the caption band for a base font size. */
export function captionHeight(fontSize: number): number {
  return PAD_TOP + (fontSize + 3) + GAP + fontSize + PAD_BOTTOM;
}

/** The figure with its caption band on top: the figure's marks move down, nothing of them is redrawn. */
export function captionScene(scene: Scene, caption: FigureCaption, style: CaptionStyle): Scene {
  const band = captionHeight(style.fontSize);
  const room = Math.max(40, scene.width - 2 * PAD_X);
  const titleSize = style.fontSize + 3;
  const marks: Mark[] = [
    {
      type: 'text', x: PAD_X, y: PAD_TOP, baseline: 'hanging', text: fitText(caption.title, titleSize, room, true), fontSize: titleSize,
      weight: 'bold', fill: style.text, role: 'caption-title',
    },
    {
      type: 'text', x: PAD_X, y: PAD_TOP + titleSize + GAP, baseline: 'hanging', fontSize: style.fontSize, fill: style.mutedText,
      text: fitText(`${runsLabel(caption.runs)} · exported ${caption.date}`, style.fontSize, room), role: 'caption-runs',
      datum: { lines: [`Runs: ${caption.runs.length === 0 ? 'all' : caption.runs.join(', ')}`, `Exported ${caption.date}`] },
    },
    { type: 'group', y: band, marks: scene.marks },
  ];
  return { ...scene, height: scene.height + band, title: `${caption.title} (${runsLabel(caption.runs)}, ${caption.date}). ${scene.title}`, marks };
}

/** A name part safe on every file system: letters, digits, dot and dash; nothing hidden, nothing empty. */
export function safeNamePart(text: string, max = 40): string {
  return text
    .normalize('NFKD')
    .replace(/[^A-Za-z0-9.-]+/g, '-')
    .replace(/[.-]{2,}/g, '-')
    .replace(/^[.-]+|[.-]+$/g, '')
    .slice(0, max)
    .replace(/[.-]+$/, '');
}

/**
 * `switch-cost_sw-mtrouter+uno-sim_2026-11-24.png`: what, over which runs, when. `detail` (an episode id, a
 * policy pair) goes after the analysis; runs past three are counted (`a+b+c+5-more`), none is `all-runs`.
 */
export function figureExportName(what: string, runs: readonly string[], date: string, ext: string, detail?: string): string {
  const named = runs.slice(0, RUNS_IN_NAME).map((r) => safeNamePart(r, 32)).filter(Boolean);
  const more = runs.length > RUNS_IN_NAME ? [`${runs.length - RUNS_IN_NAME}-more`] : [];
  const runPart = runs.length === 0 ? 'all-runs' : [...named, ...more].join('+') || 'runs';
  const parts = [safeNamePart(what) || 'figure', ...(detail ? [safeNamePart(detail, 60)] : []), runPart, safeNamePart(date, 10)];
  return `${parts.filter(Boolean).join('_')}.${safeNamePart(ext, 8) || 'bin'}`;
}
