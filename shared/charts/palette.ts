/**
 * The model palette, defined once. A model's colour is `MODEL_PALETTE[color_index % length]`, where
 * `color_index` comes from `listModels` (stable across views, runs added later, and exports).
 * Order: Okabe–Ito (colour-blind safe; black left out because it vanishes in the dark theme), then the
 * Tableau 10 set as an extension for pools larger than seven models. Past 17 models colours repeat, and the
 * legend and chips always carry the name as well.
 */
export const MODEL_PALETTE: readonly string[] = [
  '#0072B2', // blue
  '#E69F00', // orange
  '#009E73', // bluish green
  '#D55E00', // vermillion
  '#CC79A7', // reddish purple
  '#56B4E9', // sky blue
  '#CCBB44', // yellow: Paul Tol's, since Okabe–Ito #F0E442 is unreadable on white
  '#4E79A7',
  '#F28E2B',
  '#E15759',
  '#76B7B2',
  '#59A14F',
  '#EDC948',
  '#B07AA1',
  '#FF9DA7',
  '#9C755F',
  '#BAB0AC',
];

/** Colour of a model not (yet) known to listModels. */
export const UNKNOWN_MODEL_COLOR = '#8A8F98';

export function paletteColor(colorIndex: number | null | undefined): string {
  if (colorIndex == null || colorIndex < 0) return UNKNOWN_MODEL_COLOR;
  return MODEL_PALETTE[colorIndex % MODEL_PALETTE.length] ?? UNKNOWN_MODEL_COLOR;
}
