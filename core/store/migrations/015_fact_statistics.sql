-- The store now refreshes the fact tables' planner statistics as facts come and go (Store, after a
-- transaction that wrote facts), not only when the episode index has grown by a quarter: stale, they
-- told the planner a person with 10,000 facts had one, and it compared every fact vector exactly
-- instead of reading the nearest from their index (190 ms against 8). As for episodes and messages
-- (011), the columns no query selects, joins or sorts by get no statistics: ANALYZE of the three
-- tables at 10,000 facts took 170–280 ms, most of it their text.
ALTER TABLE semantic_nodes
  ALTER COLUMN label SET STATISTICS 0,
  ALTER COLUMN value SET STATISTICS 0,
  ALTER COLUMN context SET STATISTICS 0,
  ALTER COLUMN keywords SET STATISTICS 0,
  ALTER COLUMN discovery_method SET STATISTICS 0,
  ALTER COLUMN tier_reason SET STATISTICS 0;
ALTER TABLE semantic_versions
  ALTER COLUMN value SET STATISTICS 0,
  ALTER COLUMN context SET STATISTICS 0,
  ALTER COLUMN source_message_ids SET STATISTICS 0;
ALTER TABLE semantic_embeddings ALTER COLUMN embedding SET STATISTICS 0;
