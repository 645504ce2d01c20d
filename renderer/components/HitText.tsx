/** Plain log text with the search term's occurrences in `<mark class="search-hit">`; React inserts the text as text. */
import { splitHits } from '../format/searchHits.ts';

export function HitText({ text, highlight }: { text: string; highlight?: string }) {
  if (!highlight?.trim()) return <>{text}</>;
  return (
    <>
      {splitHits(text, highlight).map((piece, i) =>
        piece.hit ? (
          <mark key={i} className="search-hit">
            {piece.text}
          </mark>
        ) : (
          piece.text
        ),
      )}
    </>
  );
}
