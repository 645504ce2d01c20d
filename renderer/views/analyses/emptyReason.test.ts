import { describe, expect, it } from 'vitest';
import type { AnalysisResponse } from '../../../shared/analysisResults.ts';
import { emptyReason, extrapolationNote } from './emptyReason.ts';

const calibration = (result: object) => ({ request: { id: 'calibration' }, result }) as unknown as AnalysisResponse;

describe('emptyReason', () => {
  it('gives the result’s own reason, not a fixed sentence', () => {
    const r = emptyReason(calibration({ reason: 'model_not_candidate', note: 'Model not a candidate: …' }));
    expect(r).toEqual({ title: 'The logged models are not candidates', text: 'Model not a candidate: …', reason: 'model_not_candidate' });
  });

  it('is null when there is something to draw, or for other analyses', () => {
    expect(emptyReason(calibration({ note: null }))).toBeNull();
    expect(emptyReason({ request: { id: 'lift' }, result: {} } as unknown as AnalysisResponse)).toBeNull();
    expect(emptyReason(null)).toBeNull();
  });
});

describe('extrapolationNote', () => {
  it('names the task types outside training, or nothing', () => {
    expect(extrapolationNote(calibration({ outside_training: ['swe', 'math'] }))).toMatch(/never saw swe, math tasks in training/);
    expect(extrapolationNote(calibration({ outside_training: ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h'] }))).toMatch(/never saw a, b, c, d, e, f and 2 more task types in/);
    expect(extrapolationNote(calibration({ outside_training: [] }))).toBeNull();
    expect(extrapolationNote(calibration({}))).toBeNull();
  });
});
