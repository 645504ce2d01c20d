// The boundary needs the client renderer (server rendering never runs error boundaries), mounted on the
// minimal DOM: one block whose rendering throws shows its fallback, its siblings stay mounted.
import { act, type ReactNode } from 'react';
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { freshContainer, type MiniElement } from '../testing/minimalDom.ts';

// react-markdown throws for one text, as the parser did on `>` x 3,000 before the scan existed: the boundary in
// Markdown is what stands between that throw and the window.
vi.mock('react-markdown', async (importOriginal) => {
  const real = await importOriginal<typeof import('react-markdown')>();
  return {
    ...real,
    default: (props: { children?: string }) => {
      if (props.children === 'explodes') throw new RangeError('Maximum call stack size exceeded');
      return <real.default {...props} />;
    },
  };
});

let container: MiniElement;
let mount: (ui: ReactNode) => Promise<() => Promise<void>>;
const caught: unknown[] = [];

beforeAll(async () => {
  freshContainer();
  const { createRoot } = await import('react-dom/client');
  mount = async (ui) => {
    container = freshContainer();
    const root = createRoot(container as unknown as Element, { onCaughtError: (e) => caught.push(e) });
    await act(async () => root.render(ui));
    return async () => act(async () => root.unmount());
  };
});

afterEach(() => {
  caught.length = 0;
});

function Thrower(): ReactNode {
  throw new RangeError('Maximum call stack size exceeded');
}

const byTestId = (id: string) => [...container.walk()].filter((e) => e.getAttribute('data-testid') === id);

describe('BlockBoundary', () => {
  it('shows the fallback of the block that threw; the blocks beside it stay', async () => {
    const { BlockBoundary } = await import('./BlockBoundary.tsx');
    const unmount = await mount(
      <div>
        <p data-testid="before">first message</p>
        <BlockBoundary resetKey="a" fallback={<p data-testid="fallback">could not be formatted</p>}>
          <Thrower />
        </BlockBoundary>
        <p data-testid="after">third message</p>
      </div>,
    );
    expect(byTestId('before')[0]?.textContent).toBe('first message');
    expect(byTestId('fallback')[0]?.textContent).toBe('could not be formatted');
    expect(byTestId('after')[0]?.textContent).toBe('third message');
    expect(caught).toHaveLength(1);
    await unmount();
  });

  it('without it the same throw unmounts everything (the control)', async () => {
    const { createRoot } = await import('react-dom/client');
    container = freshContainer();
    const root = createRoot(container as unknown as Element);
    await expect(
      act(async () =>
        root.render(
          <div>
            <p data-testid="before">first message</p>
            <Thrower />
          </div>,
        ),
      ),
    ).rejects.toThrow('Maximum call stack size exceeded');
    expect(container.textContent).toBe('');
    await act(async () => root.unmount());
  });

  it('a Markdown block whose parser throws shows its text as plain text and says so; the next block renders', async () => {
    const { Markdown } = await import('./Markdown.tsx');
    const unmount = await mount(
      <div>
        <Markdown text="explodes" testId="bad" />
        <Markdown text="**fine**" testId="good" />
      </div>,
    );
    const bad = byTestId('bad')[0];
    expect(bad?.textContent).toBe('Shown as plain text: could not be formatted.explodes');
    expect([...(bad?.walk() ?? [])].some((e) => e.tagName === 'PRE')).toBe(true);
    const good = byTestId('good')[0];
    expect(good?.getAttribute('data-format')).toBe('markdown');
    expect([...(good?.walk() ?? [])].map((e) => e.tagName)).toContain('STRONG');
    expect(caught).toHaveLength(1);
    await unmount();
  });
});
