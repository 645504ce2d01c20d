/** Copies a text to the clipboard and says so for a moment (`data-state` copied / failed, for tests and styling). */
import { useEffect, useState } from 'react';

export function CopyButton({ text, label, testId }: { text: string; label: string; testId?: string }) {
  const [state, setState] = useState<'idle' | 'copied' | 'failed'>('idle');
  useEffect(() => {
    if (state === 'idle') return;
    const timer = setTimeout(() => setState('idle'), 1500);
    return () => clearTimeout(timer);
  }, [state]);
  const copy = () => {
    // The clipboard API is missing outside a secure context (serve mode opened by a LAN address): say it failed.
    if (!navigator.clipboard) return setState('failed');
    navigator.clipboard.writeText(text).then(
      () => setState('copied'),
      () => setState('failed'),
    );
  };
  return (
    <button
      type="button"
      className="btn btn-ghost copy-button"
      onClick={copy}
      aria-label={label}
      title={state === 'failed' ? 'The browser did not allow copying' : label}
      data-state={state}
      data-testid={testId}
    >
      {state === 'copied' ? 'Copied' : state === 'failed' ? 'Copy failed' : 'Copy'}
    </button>
  );
}
