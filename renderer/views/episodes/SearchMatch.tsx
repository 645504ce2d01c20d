/**
 * Under a row of a searched list: why the episode matched — the turn, where in it, and the log text around
 * the hit. The snippet is log text: each piece goes in as a React text node, the hit in a <mark>.
 */
import type { SearchHit } from '../../../shared/api.ts';
import { visibleText } from '../../../shared/displayText.ts';
import { plural } from '../../format/numbers.ts';
// The hit's colours are the inspector's, so a word looks the same in the list and in the turn.
import '../episode/reader.css';

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
  return (
    <div className="search-match" data-testid="search-match" data-turn={match.index}>
      <span className="search-match-where" title={`First match: turn ${match.t}, in its ${match.field}${more}`}>
        Turn {match.t} · {match.field}
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
