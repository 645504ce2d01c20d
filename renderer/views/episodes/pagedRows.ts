/**
 * A sparse, windowed cache of a server-sorted result: rows are fetched a page at a time as the viewport
 * reaches them, so the Episodes table never holds more than `maxPages` pages whatever the total (30k
 * episodes is 150 pages of 200; a page is one indexed SQLite query of ~5 ms). Pages far from the viewport
 * are evicted first. One instance per query: a new filter or sort makes a new cache, and `dispose()`
 * makes the old one ignore answers still in flight.
 */
export interface Page<T> {
  total: number;
  rows: T[];
}

export type FetchPage<T> = (offset: number, limit: number) => Promise<Page<T>>;

export class PagedRows<T> {
  total: number | null = null;
  error: string | null = null;
  /** Called after every page that arrives (or fails). */
  onChange: () => void = () => {};
  private readonly pages = new Map<number, T[]>();
  private readonly inFlight = new Set<number>();
  private disposed = false;
  private lastCenter = 0;

  constructor(
    private readonly fetchPage: FetchPage<T>,
    readonly pageSize = 200,
    private readonly maxPages = 40,
  ) {}

  get(index: number): T | undefined {
    return this.pages.get(Math.floor(index / this.pageSize))?.[index % this.pageSize];
  }

  isLoaded(index: number): boolean {
    return this.pages.has(Math.floor(index / this.pageSize));
  }

  /** Fetches every page that covers [start, end) and is neither loaded nor on its way. */
  ensure(start: number, end: number): void {
    if (this.disposed) return;
    const last = this.total === null ? Math.max(start, end - 1) : Math.min(end, this.total) - 1;
    const first = Math.max(0, start);
    if (last < first && this.total !== null) return;
    const firstPage = Math.floor(first / this.pageSize);
    const lastPage = Math.floor(Math.max(first, last) / this.pageSize);
    this.lastCenter = (firstPage + lastPage) / 2;
    for (let p = firstPage; p <= lastPage; p++) {
      if (this.pages.has(p) || this.inFlight.has(p)) continue;
      this.load(p);
    }
  }

  dispose(): void {
    this.disposed = true;
  }

  get loadedPages(): number {
    return this.pages.size;
  }

  private load(page: number): void {
    this.inFlight.add(page);
    this.fetchPage(page * this.pageSize, this.pageSize).then(
      (result) => {
        this.inFlight.delete(page);
        if (this.disposed) return;
        this.total = result.total;
        this.error = null;
        this.pages.set(page, result.rows);
        this.evict();
        this.onChange();
      },
      (err: unknown) => {
        this.inFlight.delete(page);
        if (this.disposed) return;
        this.error = err instanceof Error ? err.message : String(err);
        this.onChange();
      },
    );
  }

  private evict(): void {
    if (this.pages.size <= this.maxPages) return;
    const byDistance = [...this.pages.keys()].sort((a, b) => Math.abs(b - this.lastCenter) - Math.abs(a - this.lastCenter));
    for (const p of byDistance.slice(0, this.pages.size - this.maxPages)) this.pages.delete(p);
  }
}
