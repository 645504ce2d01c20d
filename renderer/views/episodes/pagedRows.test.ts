import { describe, expect, it } from 'vitest';
import { PagedRows } from './pagedRows.ts';

function fakeServer(total: number) {
  const calls: number[] = [];
  const fetchPage = async (offset: number, limit: number) => {
    calls.push(offset);
    const rows = Array.from({ length: Math.max(0, Math.min(limit, total - offset)) }, (_, i) => offset + i);
    return { total, rows };
  };
  return { calls, fetchPage };
}

const settle = () => new Promise((r) => setTimeout(r, 0));

describe('PagedRows', () => {
  it('fetches only the pages the window covers, once each', async () => {
    const server = fakeServer(30_000);
    const rows = new PagedRows(server.fetchPage, 200);
    rows.ensure(0, 50);
    rows.ensure(10, 60);
    await settle();
    expect(server.calls).toEqual([0]);
    expect(rows.total).toBe(30_000);
    rows.ensure(15_150, 15_260);
    await settle();
    expect(server.calls).toEqual([0, 15_000, 15_200]);
    expect(rows.get(15_201)).toBe(15_201);
    expect(rows.get(400)).toBeUndefined();
  });

  it('evicts the pages farthest from the viewport', async () => {
    const server = fakeServer(10_000);
    const rows = new PagedRows(server.fetchPage, 100, 3);
    for (const start of [0, 1000, 2000, 3000]) {
      rows.ensure(start, start + 10);
      await settle();
    }
    expect(rows.loadedPages).toBe(3);
    expect(rows.isLoaded(0)).toBe(false);
    expect(rows.isLoaded(3000)).toBe(true);
  });

  it('ignores answers that arrive after it was disposed', async () => {
    const server = fakeServer(10);
    const rows = new PagedRows(server.fetchPage, 100);
    let changes = 0;
    rows.onChange = () => changes++;
    rows.ensure(0, 10);
    rows.dispose();
    await settle();
    expect(changes).toBe(0);
    expect(rows.total).toBeNull();
  });
});
