-- Three lookups an import makes for every part of a chat that grew with the chat: in a 200 MB
-- Telegram import (650k messages in one chat) each took ~100 ms by the end, 60 s of the import in all.

-- The number the conversation's next message gets, kept on its row instead of max(seq) over all of
-- its messages.
ALTER TABLE conversations ADD COLUMN next_seq integer NOT NULL DEFAULT 0;
UPDATE conversations c SET next_seq = m.n
FROM (SELECT owner_id, conversation_id, max(seq) + 1 AS n FROM messages GROUP BY owner_id, conversation_id) m
WHERE m.owner_id = c.owner_id AND m.conversation_id = c.id;

-- The conversation's latest episode (where its next messages may continue) without sorting them all.
-- A conversation id names one owner's conversation: these indexes need not hold the owner as well
-- (queries still name it), which keeps the two to the size of the one before.
DROP INDEX episodes_by_conversation;
CREATE INDEX episodes_by_conversation ON episodes (conversation_id, start_at);
CREATE INDEX episodes_by_conversation_end ON episodes (conversation_id, end_at);

-- A removed document's posting is in a block whose impact range holds the impact the document
-- recorded for that term: only those blocks are read, not every block of its common terms.
CREATE OR REPLACE FUNCTION bm25_drop_doc_postings() RETURNS trigger LANGUAGE plpgsql AS $$
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

  WITH hit AS (SELECT g.owner_id, g.doc_no, u.term_id, u.impact FROM gone g, unnest(g.term_ids, g.impacts) AS u(term_id, impact)),
       touched AS (SELECT DISTINCT x.ctid AS block FROM hit h
                   JOIN bm25_postings x ON x.owner_id = h.owner_id AND x.term_id = h.term_id
                                       AND x.min_impact <= h.impact AND x.max_impact >= h.impact
                   WHERE h.doc_no = ANY(x.docs)),
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
