/**
 * Small steps of the Markdown component's pipeline. The remark step turns HTML written in a log into text, so it
 * is shown as written instead of being dropped by the sanitiser. The rehype steps run after sanitising, on text
 * nodes only: they add marks or trim a newline, and never let log text become markup.
 */
import type { ElementContent, Root, RootContent } from 'hast';
import type { Nodes as MdNodes, Root as MdRoot } from 'mdast';
import { splitHits } from '../format/searchHits.ts';

type Parent = { children: (RootContent | ElementContent)[] };

function markText(parent: Parent, term: string): void {
  const out: (RootContent | ElementContent)[] = [];
  for (const child of parent.children) {
    if (child.type !== 'text') {
      if (child.type === 'element') markText(child, term);
      out.push(child);
      continue;
    }
    for (const piece of splitHits(child.value, term)) {
      out.push(
        piece.hit
          ? { type: 'element', tagName: 'mark', properties: { className: ['search-hit'] }, children: [{ type: 'text', value: piece.text }] }
          : { type: 'text', value: piece.text },
      );
    }
  }
  parent.children = out;
}

export function rehypeSearchHits(options: { term?: string | null }) {
  return (tree: Root): void => {
    const term = options.term?.trim();
    if (term) markText(tree, term);
  };
}

/** Drops the newline the markdown-to-HTML step adds at the end of every code block, so copied and shown text match the log. */
export function rehypeTrimCodeEnd() {
  return (tree: Root): void => {
    const walk = (node: Parent & { type: string; tagName?: string }) => {
      for (const child of node.children) {
        if (child.type !== 'element') continue;
        const last = child.children.at(-1);
        if (child.tagName === 'code' && node.tagName === 'pre' && last?.type === 'text' && last.value.endsWith('\n')) {
          last.value = last.value.slice(0, -1);
        }
        walk(child);
      }
    };
    walk(tree);
  };
}

const BLOCK_PARENTS = new Set(['root', 'blockquote', 'listItem', 'footnoteDefinition']);

/** HTML in the markdown (a `<div>` line, an inline `<img>`) becomes literal text: a paragraph where it was a block. */
export function remarkHtmlAsText() {
  return (tree: MdRoot): void => {
    const walk = (node: MdNodes) => {
      if (!('children' in node)) return;
      const block = BLOCK_PARENTS.has(node.type);
      node.children = node.children.map((child) => {
        if (child.type !== 'html') {
          walk(child);
          return child;
        }
        const text = { type: 'text' as const, value: child.value };
        return block ? { type: 'paragraph' as const, children: [text] } : text;
      }) as typeof node.children;
    };
    walk(tree);
  };
}
