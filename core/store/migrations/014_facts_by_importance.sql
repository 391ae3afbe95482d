-- "What I know about you" reads facts most important first, then most certain, then latest changed,
-- a page at a time, at the start of every conversation a companion has: in that order from an index,
-- the first page is read without sorting every fact the person has (the capacity allows 10,000).
CREATE INDEX semantic_nodes_by_importance ON semantic_nodes (owner_id, importance DESC, confidence DESC, updated_at DESC, id DESC);
