/** A small drawing of each analysis's figure for its card on the index (decorative: the card names it). */
import type { ReactNode } from 'react';
import type { AnalysisId } from '../../../shared/analysisResults.ts';
import { MODEL_PALETTE } from '../../../shared/charts/palette.ts';

const [BLUE, ORANGE, GREEN, RED] = MODEL_PALETTE;
const W = 56;
const H = 40;

const GLYPHS: Record<AnalysisId, ReactNode> = {
  pareto: (
    <>
      <path d="M6 34H52M6 34V4" className="glyph-axis" />
      <path d="M10 30L20 18L34 12L48 8" stroke={BLUE} fill="none" strokeWidth="1.6" />
      {[[10, 30], [20, 18], [34, 12], [48, 8], [26, 26], [40, 22]].map(([x, y], i) => (
        <circle key={i} cx={x} cy={y} r="2.6" fill={i < 4 ? BLUE : ORANGE} />
      ))}
    </>
  ),
  'switch-cost': (
    <>
      <path d="M6 34H52M6 34V4" className="glyph-axis" />
      {[[12, 28], [16, 26], [22, 22], [26, 24], [32, 17], [38, 14], [44, 10], [48, 12]].map(([x, y], i) => (
        <circle key={i} cx={x} cy={y} r="2.2" fill={i % 2 ? GREEN : BLUE} />
      ))}
    </>
  ),
  'error-recovery': (
    <>
      <path d="M6 34H52" className="glyph-axis" />
      {[[10, 14, BLUE], [18, 22, ORANGE], [32, 10, BLUE], [40, 18, ORANGE]].map(([x, y, c], i) => (
        <g key={i}>
          <rect x={x as number} y={y as number} width="7" height={34 - (y as number)} fill={c as string} />
          <path d={`M${(x as number) + 3.5} ${(y as number) - 4}V${(y as number) + 4}`} className="glyph-axis" />
        </g>
      ))}
    </>
  ),
  'usage-by-turn': (
    <>
      <path d="M6 34L52 34L52 22L30 26L6 18Z" fill={BLUE} />
      <path d="M6 18L30 26L52 22L52 12L30 10L6 8Z" fill={ORANGE} />
      <path d="M6 8L30 10L52 12L52 4L6 4Z" fill={GREEN} />
    </>
  ),
  lift: (
    <>
      {[0, 1, 2].flatMap((r) =>
        [0, 1, 2, 3].map((c) => {
          const fills = ['#2166ac', '#92c5de', '#f7f7f7', '#fdb863', '#b35806'];
          return <rect key={`${r}-${c}`} x={8 + c * 10.5} y={5 + r * 10.5} width="9.5" height="9.5" fill={fills[(r * 2 + c * 3) % 5]} className="glyph-cell" />;
        }),
      )}
    </>
  ),
  'plan-dag': (
    <>
      <path d="M12 20L26 9M12 20L26 31M26 9L42 20M26 31L42 20" className="glyph-axis" />
      <circle cx="12" cy="20" r="4.5" fill={BLUE} />
      <circle cx="26" cy="9" r="4.5" fill={ORANGE} />
      <circle cx="26" cy="31" r="4.5" fill={GREEN} />
      <circle cx="42" cy="20" r="4.5" fill={BLUE} />
    </>
  ),
  'budget-modes': (
    <>
      <path d="M6 34H52" className="glyph-axis" />
      {[[9, 24], [22, 16], [35, 8]].map(([x, y], i) => (
        <g key={i}>
          <rect x={x} y={y} width="5" height={34 - (y as number)} fill={BLUE} />
          <rect x={(x as number) + 5.5} y={(y as number) + 6} width="5" height={28 - (y as number)} fill={ORANGE} />
        </g>
      ))}
    </>
  ),
  'usage-ratio': (
    <>
      <path d="M6 34H52" className="glyph-axis" />
      {[[10, 12, BLUE], [24, 22, ORANGE], [38, 28, GREEN]].map(([x, y, c], i) => (
        <g key={i}>
          <rect x={x as number} y={y as number} width="9" height={34 - (y as number)} fill={c as string} />
          <path d={`M${(x as number) - 2} ${(y as number) + 4 - i * 5}H${(x as number) + 11}`} stroke={RED} strokeWidth="1.6" strokeDasharray="2 1.5" />
        </g>
      ))}
    </>
  ),
  confusion: (
    <>
      <rect x="12" y="4" width="15" height="15" fill="#08306b" className="glyph-cell" />
      <rect x="28" y="4" width="15" height="15" fill="#c6dbef" className="glyph-cell" />
      <rect x="12" y="20" width="15" height="15" fill="#9ecae1" className="glyph-cell" />
      <rect x="28" y="20" width="15" height="15" fill="#2171b5" className="glyph-cell" />
    </>
  ),
  targets: (
    <>
      <path d="M6 34H52M6 34V4" className="glyph-axis" />
      <path d="M8 22H18V18H30V12H42V8H50" stroke={BLUE} fill="none" strokeWidth="1.8" />
      <path d="M18 30V34M30 28V34" stroke={RED} strokeWidth="2.4" />
    </>
  ),
  calibration: (
    <>
      <path d="M6 34H52M6 34V4" className="glyph-axis" />
      <path d="M8 32L50 6" className="glyph-axis" strokeDasharray="2 2" />
      <path d="M10 30L18 25L27 20L36 12L46 9" stroke={BLUE} fill="none" strokeWidth="1.6" />
      {[[10, 30], [18, 25], [27, 20], [36, 12], [46, 9]].map(([x, y], i) => (
        <circle key={i} cx={x} cy={y} r="2.4" fill={BLUE} />
      ))}
    </>
  ),
  embeddings: (
    <>
      {[[12, 10, BLUE], [16, 14, BLUE], [10, 16, BLUE], [38, 8, ORANGE], [43, 12, ORANGE], [40, 15, ORANGE], [24, 30, GREEN], [30, 32, GREEN], [27, 26, GREEN]].map(([x, y, c], i) => (
        <circle key={i} cx={x as number} cy={y as number} r="2.6" fill={c as string} />
      ))}
    </>
  ),
};

export function AnalysisGlyph({ id }: { id: AnalysisId }) {
  return (
    <svg className="analysis-glyph" width={W} height={H} viewBox={`0 0 ${W} ${H}`} aria-hidden="true">
      {GLYPHS[id]}
    </svg>
  );
}
