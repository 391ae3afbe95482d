-- A one-character Chinese query word ("猫") also matches the two-character words the keyword indexes
-- hold it in (猫咪, 小猫: core/retrieval/char-words.ts). Those that begin with it are a range of each
-- table's index by term; those that end with it are found by these (only two-character terms are in
-- them: one index more to keep up while importing, not two).
CREATE INDEX bm25_terms_pairs_by_last ON bm25_terms (owner_id, right(term, 1)) WHERE char_length(term) = 2;
CREATE INDEX semantic_terms_pairs_by_last ON semantic_terms (owner_id, right(term, 1)) WHERE char_length(term) = 2;
