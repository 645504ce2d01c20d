import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ModelCard } from '../../../shared/apiEstimator.ts';
import { trainingSummary } from './trainingSummary.ts';

describe('what an estimator was trained on', () => {
  it('the shipped default says it from its own card: simulated ScienceWorld, seed 21, the runs, episodes and turns', () => {
    const card = ModelCard.parse(JSON.parse(readFileSync(new URL('../../../models/default-estimator.card.json', import.meta.url), 'utf8')));
    // scripts/train-default.ts: 60,000 episodes simulated with seed 21, of which the three stochastic routers' runs
    // hold 36,000 episodes and 557,258 turns (checked by simulating again: 500,562 training + 56,696 held-out rows).
    expect(trainingSummary(card)).toBe('trained on 36,000 episodes (557,258 turns) of 3 runs of simulated scienceworld (seed 21); training seed 1');
    expect(card.data.simulated).toEqual({ preset: 'scienceworld', seed: 21, episodes: 60_000 });
    expect(card.data.runs).toEqual(['sw-mtrouter', 'sw-random', 'sw-switch-on-error']);
  });

  it('a card of logs names its database; no card, nothing is claimed', () => {
    const card = ModelCard.parse(JSON.parse(readFileSync(new URL('../../../models/default-estimator.card.json', import.meta.url), 'utf8')));
    const { simulated: _s, ...logs } = card.data;
    expect(trainingSummary({ ...card, data: { ...logs, database: 'runs.db', runs: [] } })).toMatch(/ of every run of runs\.db; training seed 1$/);
    expect(trainingSummary(null)).toBe('no model card beside it: what it was trained on is unknown');
  });
});
