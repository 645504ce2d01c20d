/**
 * One API answer per key, kept in a small most-recently-used cache shared by every component that asks with
 * the same cache, so going back to something already seen shows it at once. A new key asks again; an answer
 * that arrives after the key moved on is cached but not shown.
 */
import { useEffect, useState } from 'react';
import { errorMessage } from './index.ts';

export type CallLoad<T> = { status: 'idle' } | { status: 'loading' } | { status: 'ready'; value: T } | { status: 'error'; message: string };

export class AnswerCache<T> {
  private readonly entries = new Map<string, T>();
  constructor(private readonly size: number) {}

  get(key: string): T | undefined {
    return this.entries.get(key);
  }

  set(key: string, value: T): void {
    this.entries.delete(key);
    this.entries.set(key, value);
    while (this.entries.size > this.size) {
      const oldest = this.entries.keys().next().value;
      if (oldest === undefined) break;
      this.entries.delete(oldest);
    }
  }
}

/** `key` null: nothing to ask. `call` is read only when `key` changes: the key must say everything it asks. */
export function useCachedCall<T>(cache: AnswerCache<T>, key: string | null, call: () => Promise<T>): CallLoad<T> {
  const [load, setLoad] = useState<{ key: string | null; load: CallLoad<T> }>({ key: null, load: { status: 'idle' } });

  useEffect(() => {
    if (key === null || cache.get(key) !== undefined) return;
    let live = true;
    setLoad({ key, load: { status: 'loading' } });
    call().then(
      (value) => {
        cache.set(key, value);
        if (live) setLoad({ key, load: { status: 'ready', value } });
      },
      (err: unknown) => {
        if (live) setLoad({ key, load: { status: 'error', message: errorMessage(err) } });
      },
    );
    return () => {
      live = false;
    };
    // The key stands for everything `call` asks, so `call` is not a dependency of its own.
  }, [key, cache]);

  if (key === null) return { status: 'idle' };
  const cached = cache.get(key);
  if (cached !== undefined) return { status: 'ready', value: cached };
  return load.key === key ? load.load : { status: 'loading' };
}
