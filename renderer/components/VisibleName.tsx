/**
 * A name from a log (model, run, episode id) drawn so that every character in it shows: a zero-width space,
 * bidi override, control or other invisible character becomes a marker with its escape (`\u200b`, as the
 * CLI and CSV exports print it) and its Unicode name in a tooltip, so `gpt\u200b-5` and `gpt-5` look
 * different. React already draws the text as text (never HTML); this only makes the hidden part visible.
 */
import { hiddenCharactersNote, visibleParts } from '../../shared/displayText.ts';

export function VisibleName({ name, className }: { name: string; className?: string }) {
  const parts = visibleParts(name);
  const only = parts[0];
  if (parts.length === 1 && only && 'text' in only) return <span className={className}>{only.text}</span>;
  return (
    <span className={className} title={`${visibleTitle(name)}`} data-hidden-characters="true">
      {parts.map((p, i) =>
        'text' in p ? (
          p.text
        ) : (
          <span key={i} className="hidden-char" title={p.description} aria-label={p.description}>
            {p.escape}
          </span>
        ),
      )}
    </span>
  );
}

/** A tooltip for a name: the name with its hidden characters escaped, and which they are. */
export function visibleTitle(name: string): string {
  const note = hiddenCharactersNote(name);
  return note === null ? name : `${visibleParts(name).map((p) => ('text' in p ? p.text : p.escape)).join('')} (${note})`;
}
