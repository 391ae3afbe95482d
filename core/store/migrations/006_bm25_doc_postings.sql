-- Each indexed document keeps its own postings (terms and impacts, as bm25_parked does), so removing a
-- document finds its postings through the impact index, exact (owner, term, impact) lookups, instead of
-- through a second index over every posting by episode. That index was a third copy of the postings
-- (as large as the table itself), and the foreign key checked every inserted posting against episodes;
-- both go. A trigger keeps what the cascade did: a document deleted with its episode takes its postings.
ALTER TABLE bm25_docs ADD COLUMN terms text[] NOT NULL DEFAULT '{}';
ALTER TABLE bm25_docs ADD COLUMN impacts real[] NOT NULL DEFAULT '{}';  -- impacts[i] belongs to terms[i]
UPDATE bm25_docs d SET terms = p.terms, impacts = p.impacts
FROM (SELECT episode_id, array_agg(term ORDER BY term) AS terms, array_agg(impact ORDER BY term) AS impacts
      FROM bm25_postings GROUP BY episode_id) p
WHERE p.episode_id = d.episode_id;
ALTER TABLE bm25_docs ALTER COLUMN terms DROP DEFAULT;
ALTER TABLE bm25_docs ALTER COLUMN impacts DROP DEFAULT;
DROP INDEX bm25_postings_by_episode;
ALTER TABLE bm25_postings DROP CONSTRAINT bm25_postings_episode_id_fkey;

-- Per statement, so removing many documents is one join the planner can hash rather than a probe per row.
CREATE FUNCTION bm25_drop_doc_postings() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM bm25_postings x
  USING gone d, unnest(d.terms, d.impacts) AS u(term, impact)
  WHERE x.owner_id = d.owner_id AND x.term = u.term AND x.impact = u.impact AND x.episode_id = d.episode_id;
  RETURN NULL;
END $$;
CREATE TRIGGER bm25_docs_drop_postings AFTER DELETE ON bm25_docs REFERENCING OLD TABLE AS gone
  FOR EACH STATEMENT EXECUTE FUNCTION bm25_drop_doc_postings();
