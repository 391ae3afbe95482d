-- The store vacuums and analyzes its tables as they grow (Store.maintain), and ANALYZE spent most of
-- that time on columns no query filters or joins by: postings arrays, message and episode text, JSON.
-- Their statistics could only ever size a sort; they are not collected (10 MB import: ANALYZE of the
-- maintained tables 1.27 s → 0.26 s). The columns queries do select by keep theirs.
ALTER TABLE bm25_docs ALTER COLUMN term_ids SET STATISTICS 0, ALTER COLUMN impacts SET STATISTICS 0;
ALTER TABLE bm25_terms ALTER COLUMN docs SET STATISTICS 0, ALTER COLUMN impacts SET STATISTICS 0;
ALTER TABLE bm25_postings ALTER COLUMN docs SET STATISTICS 0, ALTER COLUMN impacts SET STATISTICS 0;
ALTER TABLE episodes
  ALTER COLUMN title SET STATISTICS 0,
  ALTER COLUMN content SET STATISTICS 0,
  ALTER COLUMN summary SET STATISTICS 0,
  ALTER COLUMN metadata SET STATISTICS 0,
  ALTER COLUMN structured_data SET STATISTICS 0,
  ALTER COLUMN keywords SET STATISTICS 0;
ALTER TABLE messages
  ALTER COLUMN content SET STATISTICS 0,
  ALTER COLUMN attachments SET STATISTICS 0,
  ALTER COLUMN metadata SET STATISTICS 0;
