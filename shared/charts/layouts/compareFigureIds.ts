/** The Compare view's figures, by id: apart from their layouts so the API contract can name them. */
export const COMPARE_FIGURE_IDS = ['paired-scatter', 'cost-diff', 'model-cost'] as const;
export type CompareFigureId = (typeof COMPARE_FIGURE_IDS)[number];
