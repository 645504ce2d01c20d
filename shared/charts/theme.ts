/**
 * Chart themes (light and dark): every colour a layout uses that is not a model's, and the font. Layouts
 * take the theme as input so the Scene they return is final — the window and the exporter draw the same
 * colours. Data colours are colour-blind safe: models and runs use shared/charts/palette.ts (two families kept
 * apart), and continuous scales are blue–white–orange (diverging, lift around 1) and a single-hue blue ramp (sequential, shares), both readable under deuteranopia and in greyscale by lightness.
 */
import { interpolateLab } from 'd3';

export type ThemeName = 'light' | 'dark';

export interface ChartTheme {
  name: ThemeName;
  background: string;
  /** Labels, titles. */
  text: string;
  /** Secondary text: tick labels, notes. */
  mutedText: string;
  /** Axis lines and ticks. */
  axis: string;
  grid: string;
  /** Non-data marks and "no data" cells. */
  muted: string;
  /** Reference marks (a target ρ, a reference run, lift = 1). */
  reference: string;
  /** Outline drawn around marks so they stay apart from their neighbours. */
  outline: string;
  fontFamily: string;
  /** Base font size (ticks, legend) in px; labels use it + 1, panel titles + 2. */
  fontSize: number;
  /** Continuous diverging colour, t ∈ [0, 1], neutral at 0.5. */
  diverging: (t: number) => string;
  /** Continuous sequential colour, t ∈ [0, 1], light (low) to strong (high) on this background. */
  sequential: (t: number) => string;
  /** Status colours for plan-DAG nodes and verdicts: fine, failed, other. */
  status: { ok: string; failed: string; other: string };
}

/** DejaVu Sans ships with every Debian-like desktop and is what the PNG rasteriser finds; the rest are fallbacks. */
export const CHART_FONT_FAMILY = "'DejaVu Sans', 'Liberation Sans', Arial, Helvetica, sans-serif";

const clamp01 = (t: number): number => (Number.isFinite(t) ? Math.min(1, Math.max(0, t)) : 0.5);

function diverging(low: string, mid: string, high: string): (t: number) => string {
  const a = interpolateLab(low, mid);
  const b = interpolateLab(mid, high);
  return (t) => {
    const u = clamp01(t);
    return u <= 0.5 ? a(u * 2) : b((u - 0.5) * 2);
  };
}

function ramp(from: string, to: string): (t: number) => string {
  const f = interpolateLab(from, to);
  return (t) => f(clamp01(t));
}

export const LIGHT_THEME: ChartTheme = {
  name: 'light',
  background: '#ffffff',
  text: '#1f2328',
  mutedText: '#57606a',
  axis: '#6e7781',
  grid: '#e6e8eb',
  muted: '#d0d7de',
  reference: '#444c56',
  outline: '#ffffff',
  fontFamily: CHART_FONT_FAMILY,
  fontSize: 11,
  diverging: diverging('#2166ac', '#f7f7f7', '#b35806'),
  sequential: ramp('#eef3fa', '#08306b'),
  status: { ok: '#009E73', failed: '#D55E00', other: '#8A8F98' },
};

export const DARK_THEME: ChartTheme = {
  name: 'dark',
  background: '#16191d',
  text: '#e6edf3',
  mutedText: '#9da7b3',
  axis: '#8b949e',
  grid: '#2d333b',
  muted: '#3d444d',
  reference: '#c9d1d9',
  outline: '#16191d',
  fontFamily: CHART_FONT_FAMILY,
  fontSize: 11,
  diverging: diverging('#4393c3', '#2a2f36', '#e08214'),
  sequential: ramp('#1f2a36', '#9ecae1'),
  status: { ok: '#2dbd8e', failed: '#f07b3f', other: '#8b949e' },
};

export function chartTheme(name: ThemeName): ChartTheme {
  return name === 'dark' ? DARK_THEME : LIGHT_THEME;
}

export { RUN_PALETTE, runColors } from './palette.ts';
