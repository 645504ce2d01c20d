import { describe, expect, it } from 'vitest';
import type { Scene } from '../../shared/charts/scene.ts';
import { indexScene, markLabel, nextMarkIndex, placeTooltip } from './sceneIndex.ts';

const scene: Scene = {
  width: 300,
  height: 200,
  background: '#fff',
  fontFamily: 'sans-serif',
  title: 'test',
  marks: [
    { type: 'text', x: 0, y: 10, text: 'axis', fontSize: 11 },
    { type: 'rect', x: 0, y: 0, width: 10, height: 10, datum: { lines: ['gpt-5 × python', 'lift 1.40', 'n = 212'] } },
    {
      type: 'group',
      x: 20,
      marks: [
        { type: 'circle', cx: 0, cy: 0, r: 3, datum: { lines: ['run a'], link: { kind: 'episode', episodeId: 4 } } },
        { type: 'circle', cx: 5, cy: 0, r: 3, datum: { lines: [] } },
      ],
    },
    { type: 'line', x1: 0, y1: 0, x2: 1, y2: 1, datum: { lines: ['frontier'] } },
  ],
};

describe('indexing a scene', () => {
  it('numbers the marks with hover lines depth first, in drawing order, and skips empty ones', () => {
    const index = indexScene(scene);
    expect(index.marks.map((m) => m.datum.lines[0])).toEqual(['gpt-5 × python', 'run a', 'frontier']);
    const group = scene.marks[2];
    expect(group?.type === 'group' && index.indexOf.get(group.marks[0] as never)).toBe(1);
    expect(index.indexOf.has(scene.marks[0] as never)).toBe(false);
  });

  it('names a mark for screen readers by its lines', () => {
    expect(markLabel({ lines: ['gpt-5 × python', 'lift 1.40', 'n = 212'] })).toBe('gpt-5 × python; lift 1.40; n = 212');
  });
});

describe('keyboard walking', () => {
  it('steps and jumps within the marks and ignores other keys', () => {
    expect(nextMarkIndex(0, 'ArrowRight', 3)).toBe(1);
    expect(nextMarkIndex(2, 'ArrowDown', 3)).toBe(2);
    expect(nextMarkIndex(0, 'ArrowLeft', 3)).toBe(0);
    expect(nextMarkIndex(1, 'End', 3)).toBe(2);
    expect(nextMarkIndex(2, 'Home', 3)).toBe(0);
    expect(nextMarkIndex(1, 'a', 3)).toBeNull();
    expect(nextMarkIndex(0, 'ArrowRight', 0)).toBeNull();
  });
});

describe('placing a tooltip', () => {
  const tip = { width: 100, height: 40 };
  const box = { width: 400, height: 300 };
  it('goes below right of the pointer when it fits', () => {
    expect(placeTooltip(50, 50, tip, box)).toEqual({ left: 64, top: 64 });
  });
  it('flips left near the right edge and above near the bottom', () => {
    expect(placeTooltip(350, 280, tip, box)).toEqual({ left: 236, top: 226 });
  });
  it('never leaves the top-left corner, even in a box too small for it', () => {
    expect(placeTooltip(20, 10, { width: 390, height: 290 }, box)).toEqual({ left: 0, top: 0 });
  });
});
