/**
 * Draws a Scene (shared/charts/scene.ts) as React SVG: the same geometry the exporter writes to SVG, PNG and
 * PDF, so the window and the export are one figure. Text is emitted as text nodes (log text is untrusted).
 *
 * Interaction is delegated to the <svg> (one set of handlers, not one per mark: figures can carry thousands of
 * marks). Marks with a datum are tagged `data-mark=i` (their number in sceneIndex.ts); hovering or focusing
 * one shows its lines in a tooltip, a click or Enter follows its link. Focus is roving: Tab enters the
 * figure once, arrow keys walk its marks. The marks layer is memoised on the scene, so hover, focus and the
 * tooltip change a few DOM attributes instead of re-rendering every mark.
 */
import { memo, useCallback, useDeferredValue, useLayoutEffect, useMemo, useRef, useState, type KeyboardEvent, type PointerEvent, type ReactElement } from 'react';
import type { Mark, MarkLink, Scene } from '../../shared/charts/scene.ts';
import { alphabeticY } from '../../shared/charts/text.ts';
import { linkHint } from './markLink.ts';
import { FIGURE_KEYS, matches } from '../shortcuts.ts';
import { indexScene, markLabel, nextMarkIndex, placeTooltip, type SceneIndex } from './sceneIndex.ts';

function renderMark(mark: Mark, key: number, index: SceneIndex): ReactElement {
  const i = index.indexOf.get(mark);
  const datum = mark.datum;
  const interactive =
    i === undefined || !datum
      ? {}
      : {
          'data-mark': i,
          tabIndex: i === 0 ? 0 : -1,
          role: datum.link ? 'link' : 'img',
          'aria-label': markLabel(datum),
          className: datum.link ? 'scene-mark is-link' : 'scene-mark',
        };
  // The same defaults as the exporter (electron/export/svg.ts): shapes unfilled, text black, strokes 1 px.
  const paint = {
    fill: mark.fill ?? (mark.type === 'text' ? '#000000' : 'none'),
    stroke: mark.stroke,
    strokeWidth: mark.stroke === undefined ? undefined : (mark.strokeWidth ?? 1),
    opacity: mark.opacity,
    strokeDasharray: mark.dash,
    'data-role': mark.role,
    'data-series': mark.series,
  };
  switch (mark.type) {
    case 'rect':
      return <rect key={key} x={mark.x} y={mark.y} width={Math.max(0, mark.width)} height={Math.max(0, mark.height)} rx={mark.rx} {...paint} {...interactive} />;
    case 'line':
      return <line key={key} x1={mark.x1} y1={mark.y1} x2={mark.x2} y2={mark.y2} {...paint} {...interactive} />;
    case 'path':
      return <path key={key} d={mark.d} {...paint} {...interactive} />;
    case 'circle':
      return <circle key={key} cx={mark.cx} cy={mark.cy} r={mark.r} {...paint} {...interactive} />;
    case 'text':
      return (
        <text
          key={key}
          x={mark.x}
          // Baselines as the exporter places them (PDF and the rasteriser know only the alphabetic one).
          y={alphabeticY(mark.y, mark.fontSize, mark.baseline)}
          fontSize={mark.fontSize}
          textAnchor={mark.anchor ?? 'start'}
          fontWeight={mark.weight}
          transform={mark.rotate ? `rotate(${mark.rotate} ${mark.x} ${mark.y})` : undefined}
          {...paint}
          {...interactive}
        >
          {mark.text}
        </text>
      );
    case 'group':
      return (
        // A group paints nothing itself; only its opacity applies to its children (as in the export).
        <g key={key} transform={mark.x || mark.y ? `translate(${mark.x ?? 0} ${mark.y ?? 0})` : undefined} opacity={mark.opacity} data-role={mark.role} data-series={mark.series} {...interactive}>
          {mark.marks.map((child, k) => renderMark(child, k, index))}
        </g>
      );
  }
}

/** Every mark, drawn once per scene. */
const MarksLayer = memo(function MarksLayer({ scene, index }: { scene: Scene; index: SceneIndex }) {
  return <>{scene.marks.map((m, k) => renderMark(m, k, index))}</>;
});

interface Hover {
  index: number;
  /** Pointer (or focused mark) position in the container's coordinates. */
  x: number;
  y: number;
}

function markElement(target: EventTarget | null): SVGElement | null {
  return target instanceof Element ? (target.closest('[data-mark]') as SVGElement | null) : null;
}

function Tooltip({ hover, lines, hint, box }: { hover: Hover; lines: string[]; hint: string | null; box: { width: number; height: number } }) {
  const ref = useRef<HTMLDivElement>(null);
  const [place, setPlace] = useState<{ left: number; top: number } | null>(null);
  useLayoutEffect(() => {
    const el = ref.current;
    if (!el) return;
    setPlace(placeTooltip(hover.x, hover.y, { width: el.offsetWidth, height: el.offsetHeight }, box));
  }, [hover.x, hover.y, box, lines]);
  return (
    <div
      ref={ref}
      className="scene-tooltip"
      role="tooltip"
      data-testid="figure-tooltip"
      style={place ? { left: place.left, top: place.top } : { left: 0, top: 0, visibility: 'hidden' }}
    >
      {lines.map((line, k) => (
        <div key={k} className={k === 0 ? 'scene-tooltip-head' : undefined}>
          {line}
        </div>
      ))}
      {hint && <div className="scene-tooltip-hint">{hint}</div>}
    </div>
  );
}

interface SceneProps {
  scene: Scene;
  onActivate?(link: MarkLink): void;
  testId?: string;
}

/**
 * The figure as a transition: React renders a big scene (10k+ marks) in slices between frames instead of one
 * long task, showing the previous figure (or an empty box of the new size) until it is ready.
 */
export function SceneSvg({ scene, ...rest }: SceneProps) {
  const deferred = useDeferredValue<Scene | null>(scene, null);
  const empty = useMemo(() => ({ ...scene, marks: [] }), [scene]);
  return <SceneDrawing scene={deferred ?? empty} drawn={deferred === scene} {...rest} />;
}

/** The figure drawn at once (SceneSvg defers to it). */
export function SceneDrawing({ scene, onActivate, testId = 'figure', drawn = true }: SceneProps & { drawn?: boolean }) {
  const index = useMemo(() => indexScene(scene), [scene]);
  const root = useRef<HTMLDivElement>(null);
  const hot = useRef<SVGElement | null>(null);
  const [hover, setHover] = useState<Hover | null>(null);

  const setHot = useCallback((el: SVGElement | null) => {
    if (hot.current === el) return;
    hot.current?.classList.remove('is-hot');
    el?.classList.add('is-hot');
    hot.current = el;
  }, []);

  const show = useCallback(
    (el: SVGElement | null, at: { x: number; y: number } | null) => {
      const i = el ? Number(el.dataset.mark) : NaN;
      if (!el || !Number.isInteger(i) || !index.marks[i] || !root.current) {
        setHot(null);
        setHover(null);
        return;
      }
      setHot(el);
      let point = at;
      if (!point) {
        // Focus from the keyboard: place the tooltip by the mark itself.
        const box = root.current.getBoundingClientRect();
        const r = el.getBoundingClientRect();
        point = { x: r.left - box.left + r.width / 2, y: r.top - box.top + r.height / 2 };
      }
      setHover({ index: i, x: point.x, y: point.y });
    },
    [index, setHot],
  );

  const activate = (el: SVGElement | null) => {
    const i = el ? Number(el.dataset.mark) : NaN;
    const link = index.marks[i]?.datum.link;
    if (link && onActivate) onActivate(link);
  };

  const onPointerMove = (e: PointerEvent<SVGSVGElement>) => {
    const box = root.current?.getBoundingClientRect();
    if (!box) return;
    show(markElement(e.target), { x: e.clientX - box.left, y: e.clientY - box.top });
  };

  const onKeyDown = (e: KeyboardEvent<SVGSVGElement>) => {
    const el = markElement(e.target);
    if (!el) return;
    if (matches(FIGURE_KEYS.open, e)) {
      e.preventDefault();
      activate(el);
      return;
    }
    if (matches(FIGURE_KEYS.hide, e)) {
      show(null, null);
      return;
    }
    const next = nextMarkIndex(Number(el.dataset.mark), e.key, index.marks.length);
    if (next === null) return;
    e.preventDefault();
    const target = root.current?.querySelector<SVGElement>(`[data-mark="${next}"]`);
    if (!target) return;
    // Roving tab stop: the mark last focused is where Tab re-enters the figure.
    el.setAttribute('tabindex', '-1');
    target.setAttribute('tabindex', '0');
    target.focus();
  };

  // A new scene reuses the mark elements; put the one tab stop back on the first mark.
  useLayoutEffect(() => {
    for (const el of root.current?.querySelectorAll('[data-mark][tabindex="0"]') ?? []) {
      if (el.getAttribute('data-mark') !== '0') el.setAttribute('tabindex', '-1');
    }
    root.current?.querySelector('[data-mark="0"]')?.setAttribute('tabindex', '0');
    hot.current = null;
    setHover(null);
  }, [index]);

  const current = hover ? index.marks[hover.index] : undefined;
  const box = useMemo(() => ({ width: scene.width, height: scene.height }), [scene.width, scene.height]);

  return (
    <div
      className="scene"
      ref={root}
      data-testid={testId}
      data-marks={index.marks.length}
      data-drawn={drawn}
      style={{ width: scene.width, height: scene.height }}
    >
      <svg
        width={scene.width}
        height={scene.height}
        viewBox={`0 0 ${scene.width} ${scene.height}`}
        fontFamily={scene.fontFamily}
        role="group"
        aria-label={scene.title}
        onPointerMove={onPointerMove}
        onPointerLeave={() => show(null, null)}
        onClick={(e) => activate(markElement(e.target))}
        onFocus={(e) => show(markElement(e.target), null)}
        onBlur={() => show(null, null)}
        onKeyDown={onKeyDown}
      >
        <rect width={scene.width} height={scene.height} fill={scene.background} />
        <MarksLayer scene={scene} index={index} />
      </svg>
      {hover && current && <Tooltip hover={hover} lines={current.datum.lines} hint={current.datum.link && onActivate ? linkHint(current.datum.link) : null} box={box} />}
    </div>
  );
}
