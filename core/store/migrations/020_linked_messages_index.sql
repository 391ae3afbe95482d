-- Messages are stored before any episode is built from them: an index entry for each one's empty
-- episode was written on arrival and left dead by the link that followed. Only linked messages are
-- looked up by their episode.
DROP INDEX messages_by_episode;
CREATE INDEX messages_by_episode ON messages (episode_id) WHERE episode_id IS NOT NULL;

-- A term's row is rewritten by every import window that uses the term (its postings wait on it): room
-- on its page lets the new version stay there, with no new entry in the table's three indexes.
ALTER TABLE bm25_terms SET (fillfactor = 70);
