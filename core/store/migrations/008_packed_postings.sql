-- Packed postings. A posting row per (owner text, term text, episode uuid, impact) with its
-- index cost ~120 bytes; the same posting now costs 8 (a 4-byte document number and a 4-byte impact)
-- plus its block's share of one row header:
--   * terms get an integer id per owner (bm25_terms.id), documents an integer number per owner
--     (bm25_docs.doc_no); both are handed out from counters on the owner's bm25_stats row, so an
--     owner's index travels whole in an export and reads back into an empty owner unchanged;
--   * a document row keeps its own postings as term ids (term_ids[i] weighs impacts[i]);
--   * a term's newest postings wait on its own row (bm25_terms.docs, impacts): most terms never have
--     more than a block's worth and need no other row;
--   * bm25_postings holds blocks: up to 128 postings of one term, strongest first, with the block's
--     weakest and strongest impact. A term's waiting postings move into blocks when there are 128 of
--     them, merged with its blocks into one sorted run when the postings since its last merge reach a
--     quarter of its document frequency (bm25_terms.fresh). A query reads at most postingsPerTerm
--     postings of a term, strongest first: those waiting and those of the blocks that can hold them
--     (core/store/bm25.ts).
-- Both are built here from the documents' own postings (the very same float4 impacts, migration 006).
-- The UPDATEs below rewrite every term row in place:
-- compact: bm25_terms

-- Terms a document holds that have no row (a store that lost one) get one, so every posting keeps its id.
INSERT INTO bm25_terms (owner_id, term, df)
SELECT DISTINCT d.owner_id, u.term, 0 FROM bm25_docs d, unnest(d.terms) AS u(term)
ON CONFLICT (owner_id, term) DO NOTHING;
ALTER TABLE bm25_terms ADD COLUMN id integer;
ALTER TABLE bm25_terms ADD COLUMN fresh integer NOT NULL DEFAULT 0;         -- postings written since the last merge
ALTER TABLE bm25_terms ADD COLUMN docs integer[] NOT NULL DEFAULT '{}';      -- postings not in a block yet: bm25_docs.doc_no
ALTER TABLE bm25_terms ADD COLUMN impacts real[] NOT NULL DEFAULT '{}';      -- impacts[i] belongs to docs[i]
UPDATE bm25_terms t SET id = n.id
FROM (SELECT owner_id, term, row_number() OVER (PARTITION BY owner_id ORDER BY term)::int AS id FROM bm25_terms) n
WHERE n.owner_id = t.owner_id AND n.term = t.term;
ALTER TABLE bm25_terms ALTER COLUMN id SET NOT NULL;
CREATE UNIQUE INDEX bm25_terms_by_id ON bm25_terms (owner_id, id);

-- Rewritten rather than altered, so the text terms leave the data pages now.
CREATE TABLE bm25_docs_packed (
  episode_id   uuid PRIMARY KEY REFERENCES episodes(id) ON DELETE CASCADE,
  owner_id     text NOT NULL,
  doc_no       integer NOT NULL,
  len_title    integer NOT NULL,
  len_summary  integer NOT NULL,
  len_entities integer NOT NULL,
  len_topics   integer NOT NULL,
  len_content  integer NOT NULL,
  term_ids     integer[] NOT NULL,
  impacts      real[] NOT NULL      -- impacts[i] belongs to term_ids[i]
);
INSERT INTO bm25_docs_packed
SELECT d.episode_id, d.owner_id, row_number() OVER (PARTITION BY d.owner_id ORDER BY d.episode_id)::int,
       d.len_title, d.len_summary, d.len_entities, d.len_topics, d.len_content,
       ARRAY(SELECT t.id FROM unnest(d.terms) WITH ORDINALITY AS u(term, i)
             JOIN bm25_terms t ON t.owner_id = d.owner_id AND t.term = u.term ORDER BY u.i),
       d.impacts
FROM bm25_docs d;
DROP TABLE bm25_docs;
DROP FUNCTION bm25_drop_doc_postings();
ALTER TABLE bm25_docs_packed RENAME TO bm25_docs;
ALTER INDEX bm25_docs_packed_pkey RENAME TO bm25_docs_pkey;
ALTER TABLE bm25_docs RENAME CONSTRAINT bm25_docs_packed_episode_id_fkey TO bm25_docs_episode_id_fkey;
-- Resolves a query's matched documents to episodes without touching the table.
CREATE UNIQUE INDEX bm25_docs_by_no ON bm25_docs (owner_id, doc_no) INCLUDE (episode_id);

CREATE TABLE bm25_blocks (
  owner_id   text NOT NULL,
  term_id    integer NOT NULL,
  n          integer NOT NULL,      -- postings in the block
  min_impact real NOT NULL,
  max_impact real NOT NULL,
  docs       integer[] NOT NULL,    -- bm25_docs.doc_no, strongest first
  impacts    real[] NOT NULL        -- impacts[i] belongs to docs[i]
);
-- Every term's postings on its row, strongest first; those with a block's worth or more move into blocks.
UPDATE bm25_terms t SET docs = p.docs, impacts = p.impacts
FROM (SELECT d.owner_id, u.term_id, array_agg(d.doc_no ORDER BY u.impact DESC, d.doc_no) AS docs,
             array_agg(u.impact ORDER BY u.impact DESC, d.doc_no) AS impacts
      FROM bm25_docs d, unnest(d.term_ids, d.impacts) AS u(term_id, impact) GROUP BY d.owner_id, u.term_id) p
WHERE t.owner_id = p.owner_id AND t.id = p.term_id;
INSERT INTO bm25_blocks (owner_id, term_id, n, min_impact, max_impact, docs, impacts)
SELECT t.owner_id, t.id, count(*)::int, min(u.impact), max(u.impact), array_agg(u.doc_no ORDER BY u.i), array_agg(u.impact ORDER BY u.i)
FROM bm25_terms t, unnest(t.docs, t.impacts) WITH ORDINALITY AS u(doc_no, impact, i)
WHERE cardinality(t.docs) >= 128
GROUP BY t.owner_id, t.id, (u.i - 1) / 128;
UPDATE bm25_terms SET docs = '{}', impacts = '{}' WHERE cardinality(docs) >= 128;
DROP TABLE bm25_postings;
ALTER TABLE bm25_blocks RENAME TO bm25_postings;
-- The only index: a term's blocks, the strongest-floored first; max_impact and n make the choice of
-- blocks to read an index-only scan.
CREATE INDEX bm25_postings_by_term ON bm25_postings (owner_id, term_id, min_impact DESC) INCLUDE (max_impact, n);

ALTER TABLE bm25_stats ADD COLUMN next_term integer NOT NULL DEFAULT 0;  -- the last term id handed out
ALTER TABLE bm25_stats ADD COLUMN next_doc integer NOT NULL DEFAULT 0;   -- the last document number handed out
-- Postings indexed: the store vacuums after a quarter's growth of them (Store.maintain).
ALTER TABLE bm25_stats ADD COLUMN postings bigint NOT NULL DEFAULT 0;
UPDATE bm25_stats s SET
  next_term = COALESCE((SELECT max(t.id) FROM bm25_terms t WHERE t.owner_id = s.owner_id), 0),
  next_doc = COALESCE((SELECT max(d.doc_no) FROM bm25_docs d WHERE d.owner_id = s.owner_id), 0),
  postings = COALESCE((SELECT sum(cardinality(d.term_ids)) FROM bm25_docs d WHERE d.owner_id = s.owner_id), 0);

-- Every list of postings: those waiting on the terms' rows and the blocks.
CREATE VIEW bm25_posting_lists AS
  SELECT owner_id, id AS term_id, docs, impacts FROM bm25_terms
  UNION ALL
  SELECT owner_id, term_id, docs, impacts FROM bm25_postings;

-- Removing a document (bm25.remove, or its episode deleted) takes its postings out of its terms' rows
-- and blocks: each holding one of them is rewritten without them (a block left empty goes). Per
-- statement, so removing many documents is one hash join over their terms' postings.
CREATE FUNCTION bm25_drop_doc_postings() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  WITH hit AS (SELECT DISTINCT g.owner_id, u.term_id FROM gone g, unnest(g.term_ids) AS u(term_id)),
       kept AS (SELECT t.owner_id, t.id, array_agg(u.doc_no ORDER BY u.i) FILTER (WHERE g.doc_no IS NULL) AS docs,
                       array_agg(u.impact ORDER BY u.i) FILTER (WHERE g.doc_no IS NULL) AS impacts
                FROM hit h JOIN bm25_terms t ON t.owner_id = h.owner_id AND t.id = h.term_id
                CROSS JOIN unnest(t.docs, t.impacts) WITH ORDINALITY AS u(doc_no, impact, i)
                LEFT JOIN gone g ON g.owner_id = t.owner_id AND g.doc_no = u.doc_no
                GROUP BY t.owner_id, t.id HAVING count(g.doc_no) > 0)
  UPDATE bm25_terms t SET docs = COALESCE(k.docs, '{}'), impacts = COALESCE(k.impacts, '{}')
  FROM kept k WHERE t.owner_id = k.owner_id AND t.id = k.id;

  WITH hit AS (SELECT DISTINCT g.owner_id, u.term_id FROM gone g, unnest(g.term_ids) AS u(term_id)),
       touched AS (SELECT DISTINCT x.ctid AS block FROM hit h
                   JOIN bm25_postings x ON x.owner_id = h.owner_id AND x.term_id = h.term_id
                   CROSS JOIN unnest(x.docs) AS u(doc_no)
                   JOIN gone g ON g.owner_id = x.owner_id AND g.doc_no = u.doc_no),
       old AS (DELETE FROM bm25_postings x USING touched t WHERE x.ctid = t.block
               RETURNING x.ctid AS block, x.owner_id, x.term_id, x.docs, x.impacts)
  INSERT INTO bm25_postings (owner_id, term_id, n, min_impact, max_impact, docs, impacts)
  SELECT o.owner_id, o.term_id, count(*)::int, min(u.impact), max(u.impact),
         array_agg(u.doc_no ORDER BY u.i), array_agg(u.impact ORDER BY u.i)
  FROM old o, unnest(o.docs, o.impacts) WITH ORDINALITY AS u(doc_no, impact, i)
  WHERE NOT EXISTS (SELECT 1 FROM gone g WHERE g.owner_id = o.owner_id AND g.doc_no = u.doc_no)
  GROUP BY o.block, o.owner_id, o.term_id;
  RETURN NULL;
END $$;
CREATE TRIGGER bm25_docs_drop_postings AFTER DELETE ON bm25_docs REFERENCING OLD TABLE AS gone
  FOR EACH STATEMENT EXECUTE FUNCTION bm25_drop_doc_postings();
