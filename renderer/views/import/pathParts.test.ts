import { describe, expect, it } from 'vitest';
import { pathParts } from './pathParts.ts';

describe('pathParts', () => {
  it('breaks after folder separators and gives the path back whole', () => {
    const path = 'runs/swe-bench/django__django-11099/django__django-11099.traj';
    const parts = pathParts(path);
    expect(parts.join('')).toBe(path);
    expect(parts.slice(0, 2)).toEqual(['runs/', 'swe-bench/']);
    expect(parts.every((p) => p.length <= 24)).toBe(true);
  });

  it('keeps short names whole and handles Windows separators', () => {
    expect(pathParts('C:\\logs\\a.json')).toEqual(['C:\\', 'logs\\', 'a.json']);
    expect(pathParts('report.json')).toEqual(['report.json']);
    expect(pathParts('')).toEqual([]);
  });
});
