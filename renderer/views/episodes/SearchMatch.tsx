/**
 * Under a row of a searched list: why the episode matched — the turn, where in it, and the log text around
 * the hit. The snippet is log text: each piece goes in as a React text node, the hit in a <mark>.
 */
import type { SearchHit } from '../../../shared/api.ts';
import { visibleText } from '../../../shared/displayText.ts';
import { plural } from '../../format/numbers.ts';
// The hit's colours are the inspector's, so a word looks the same in the list and in the turn.
import '../episode/reader.css';

/** Where in the conversation the hit is: a turn's own text, a message before a turn, or one after the last turn. */
function where(match: SearchHit): { label: string; title: string } {
  const m = match.field === 'message' ? match.message : null;
  if (!m) return { label: `Turn ${match.t} · ${match.field}`, title: `turn ${match.t}, in its ${match.field}` };
  if (m.final) return { label: `After turn ${match.t} · ${m.role} message`, title: `a ${m.role} message after the last turn (${match.t})` };
  return { label: `Turn ${match.t} · ${m.role} message`, title: `a ${m.role} message that reached the model before turn ${match.t}` };
}

export function SearchMatch({ match }: { match: SearchHit | null }) {
  if (match === null) {
    return (
      <div className="search-match faint" data-testid="search-match" data-turn="">
        The episode&apos;s id matches; none of its turns does.
      </div>
    );
  }
  const text = match.snippet.map((p) => p.text).join('');
  const more = match.turns > 1 ? ` · ${plural(match.turns, 'turn')} match` : '';
  const at = where(match);
  return (
    <div className="search-match" data-testid="search-match" data-turn={match.index}>
      <span className="search-match-where" title={`First match: ${at.title}${more}`}>
        {at.label}
        {more && <span className="faint">{more}</span>}
      </span>
      <span className="search-match-text mono" title={visibleText(text)} data-testid="search-snippet">
        {match.snippet.map((piece, i) =>
          piece.hit ? (
            <mark key={i} className="search-hit">
              {visibleText(piece.text)}
            </mark>
          ) : (
            visibleText(piece.text)
          ),
        )}
      </span>
    </div>
  );
}
