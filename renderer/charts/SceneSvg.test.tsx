import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import type { Scene } from '../../shared/charts/scene.ts';
import { SceneDrawing } from './SceneSvg.tsx';

const hostile = '<img src=x onerror=alert(1)>';

const scene: Scene = {
  width: 320,
  height: 180,
  background: '#ffffff',
  fontFamily: 'DejaVu Sans',
  title: 'Lift of each model per tool',
  marks: [
    { type: 'text', x: 10, y: 20, text: hostile, fontSize: 12, anchor: 'middle', rotate: -90, weight: 'bold' },
    {
      type: 'group',
      x: 40,
      y: 10,
      marks: [
        { type: 'rect', x: 0, y: 0, width: 20, height: 20, fill: '#2166ac', role: 'cell', datum: { lines: [hostile, 'n = 5'], link: { kind: 'episode', episodeId: 1 } } },
        { type: 'rect', x: 20, y: 0, width: 20, height: 20, fill: '#b35806', role: 'cell', datum: { lines: ['b', 'n = 9'] } },
      ],
    },
    { type: 'path', d: 'M0,0L10,10', stroke: '#000', dash: '4 3' },
  ],
};

describe('drawing a scene', () => {
  const html = renderToStaticMarkup(<SceneDrawing scene={scene} />);

  it('draws every mark at the scene size, on its background', () => {
    expect(html).toContain('width="320" height="180"');
    expect(html).toContain('<rect width="320" height="180" fill="#ffffff"></rect>');
    expect(html.match(/data-role="cell"/g)).toHaveLength(2);
    expect(html).toContain('transform="translate(40 10)"');
    expect(html).toContain('transform="rotate(-90 10 20)"');
    expect(html).toContain('stroke-dasharray="4 3"');
    expect(html).toContain('fill="none"'); // a path without a fill is a line, not a black shape
  });

  it('writes log text as text, never as markup', () => {
    expect(html).not.toContain('<img');
    expect(html).toContain('&lt;img src=x onerror=alert(1)&gt;');
  });

  it('makes marks with hover lines focusable, one tab stop for the figure, named by their lines', () => {
    expect(html.match(/tabindex="0"/g)).toHaveLength(1);
    expect(html.match(/tabindex="-1"/g)).toHaveLength(1);
    expect(html).toContain('aria-label="&lt;img src=x onerror=alert(1)&gt;; n = 5"');
    expect(html).toContain('role="link"');
    expect(html).toContain('aria-label="b; n = 9"');
    expect(html).toContain('data-marks="2"');
    expect(html).toContain('aria-label="Lift of each model per tool"');
  });
});
