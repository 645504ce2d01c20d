import { describe, expect, it } from 'vitest';
import { domainTaskTypesText, extrapolationReasons, type EstimatorDomain } from './estimatorDomain.ts';

const sw: EstimatorDomain = {
  task_types: [{ task_type: 'scienceworld', episodes: 36000 }],
  task_types_from: 'card',
  runs: ['sw-mtrouter'],
  models: ['gpt-5', 'kimi-k2'],
};

describe('extrapolationReasons', () => {
  it('is empty for a turn of a trained task type on a candidate model', () => {
    expect(extrapolationReasons(sw, { task_type: 'scienceworld', model: 'gpt-5' })).toEqual([]);
  });

  it('flags a task type never seen in training', () => {
    expect(extrapolationReasons(sw, { task_type: 'swe', model: 'kimi-k2' })).toEqual(['task_type_unseen']);
  });

  it('flags a logged model that is not a candidate', () => {
    expect(extrapolationReasons(sw, { task_type: 'scienceworld', model: 'claude-sonnet-4' })).toEqual(['model_not_candidate']);
  });

  it('gives both reasons in a fixed order', () => {
    expect(extrapolationReasons(sw, { task_type: 'math', model: 'gpt-4' })).toEqual(['task_type_unseen', 'model_not_candidate']);
  });

  it('does not call a task type unseen when the domain or the turn does not name one', () => {
    expect(extrapolationReasons({ ...sw, task_types: null, task_types_from: 'unknown' }, { task_type: 'swe', model: 'gpt-5' })).toEqual([]);
    expect(extrapolationReasons(sw, { task_type: null, model: 'gpt-5' })).toEqual([]);
  });

  it('a domain with no named task types flags every named one', () => {
    expect(extrapolationReasons({ ...sw, task_types: [] }, { task_type: 'swe', model: 'gpt-5' })).toEqual(['task_type_unseen']);
  });
});

describe('domainTaskTypesText', () => {
  it('lists task types with their episode counts, or says they are unknown', () => {
    expect(domainTaskTypesText(sw)).toBe('scienceworld (36,000 episodes)');
    expect(domainTaskTypesText({ ...sw, task_types: null })).toBe('task types not recorded');
    // Counted in this database, not in the training set: names only.
    expect(domainTaskTypesText({ ...sw, task_types_from: 'runs_here' })).toBe('scienceworld');
  });
});
