-- Nemori store, version 2: forgetting and importance that learns from use.
--
-- A memory lives in one of three tiers:
--   active   — indexed for keyword (BM25) and vector search;
--   archived — vector dropped, so out of vector search; still found by id and by keyword search;
--   trash    — out of every search and listing; its BM25 postings are parked (below) so a restore
--              brings back exactly the scores it had; purged for good after the retention period.
-- The same five columns go on semantic_nodes when that table arrives (core/forgetting/targets.ts).

ALTER TABLE episodes ADD COLUMN tier text NOT NULL DEFAULT 'active'
  CHECK (tier IN ('active', 'archived', 'trash'));
-- When the tier last changed: start of the trash retention period; for an active memory that came
-- back from archive or trash, the moment it came back (its decay clock restarts there).
ALTER TABLE episodes ADD COLUMN tier_changed_at timestamptz;
-- Why it is where it is, in words ("decay score 612 ≥ 500 (trash threshold)"), for the trash view.
ALTER TABLE episodes ADD COLUMN tier_reason text;
-- The person's word on this memory: true = important (exempt from forgetting), false = not important,
-- null = no opinion. It always wins over what the engine computes.
ALTER TABLE episodes ADD COLUMN marked_important boolean;
-- The importance a builder, an LLM or a person set. `importance` itself becomes the dynamic value the
-- forgetting pass recomputes from this base, the recall count and the time since last access;
-- null means "the same as importance" (episodes written before this migration or by older code).
ALTER TABLE episodes ADD COLUMN base_importance real;

-- The trash and archive views list by tier, newest move first.
CREATE INDEX episodes_by_tier ON episodes (owner_id, tier, tier_changed_at DESC) WHERE tier <> 'active';

-- BM25 entries of trashed episodes, set aside with their stored impacts and field lengths. Parking
-- removes them from bm25_postings / bm25_docs and from the document frequencies and corpus totals
-- (as a delete would); un-parking puts the very same rows back, so scores after a restore are the
-- scores before the trash. Deleting the episode (purge) deletes its parked row.
CREATE TABLE bm25_parked (
  episode_id uuid PRIMARY KEY REFERENCES episodes(id) ON DELETE CASCADE,
  owner_id   text NOT NULL,
  lengths    integer[] NOT NULL,   -- title, summary, entities, topics, content (bm25_docs order)
  terms      text[] NOT NULL,
  impacts    real[] NOT NULL,      -- impacts[i] belongs to terms[i]
  parked_at  timestamptz NOT NULL
);
CREATE INDEX bm25_parked_by_owner ON bm25_parked (owner_id);

-- One row per applied forgetting pass (dry runs change nothing and leave no row): when it ran (the
-- scheduler runs a pass when the last one is a day old), the counts, and the moves by id with their
-- reasons — never titles or text, so the log does not keep what was forgotten.
CREATE TABLE forgetting_runs (
  id        bigserial PRIMARY KEY,
  owner_id  text NOT NULL,
  ran_at    timestamptz NOT NULL,   -- the pass's "now" (the engine clock, or --now)
  summary   jsonb NOT NULL
);
CREATE INDEX forgetting_runs_by_owner ON forgetting_runs (owner_id, ran_at DESC);
