-- Nemori store, version 5: semantic memory (fact discovery and evolution, the upsert store).
--
-- A node is one private fact under a key `{entity_type}:{identifier}`, unique per owner. Its current
-- value lives on the node; every value it ever had is a row of semantic_versions (version 1 included),
-- with the time, the episode that caused it and the messages it was drawn from. Links to episodes are
-- one table read both ways (episode → facts, fact → episodes), so the two directions cannot disagree.
-- Facts fade and are forgotten like episodes: the same tier columns as migration 002. The store's soft
-- delete is the trash tier (restorable until purged), its hard delete is a purge.

CREATE TABLE semantic_nodes (
  id                   uuid PRIMARY KEY,
  owner_id             text NOT NULL,
  key                  text NOT NULL,              -- normalised: person:john的研究方向, location:new_york
  entity_type          text NOT NULL,              -- the part of the key before the first colon
  label                text NOT NULL,              -- the key as first written, for people: John的研究方向
  value                text NOT NULL,
  context              text NOT NULL DEFAULT '',
  confidence           real NOT NULL DEFAULT 1,
  version              integer NOT NULL DEFAULT 1,
  discovery_episode_id uuid REFERENCES episodes(id) ON DELETE SET NULL,
  discovery_method     text NOT NULL,              -- diff_analysis | upsert | memorize | user_feedback
  keywords             text[] NOT NULL DEFAULT '{}',
  tags                 text[] NOT NULL DEFAULT '{}',
  source               text,                       -- metadata: where the fact came from
  access_count         integer NOT NULL DEFAULT 0,
  last_accessed        timestamptz,
  relevance            real NOT NULL DEFAULT 0,    -- the score of its latest retrieval
  importance           real NOT NULL DEFAULT 0.5,
  base_importance      real,
  tokens               integer NOT NULL DEFAULT 0, -- all versions' text, for the capacity limit
  term_len             real NOT NULL DEFAULT 0,    -- weighted length of the keyword document
  tier                 text NOT NULL DEFAULT 'active' CHECK (tier IN ('active', 'archived', 'trash')),
  tier_changed_at      timestamptz,
  tier_reason          text,
  marked_important     boolean,
  created_at           timestamptz NOT NULL,
  updated_at           timestamptz NOT NULL,
  UNIQUE (owner_id, key)
);
CREATE INDEX semantic_nodes_by_type ON semantic_nodes (owner_id, entity_type, updated_at DESC);
CREATE INDEX semantic_nodes_by_tier ON semantic_nodes (owner_id, tier, tier_changed_at DESC) WHERE tier <> 'active';

-- Lineage: version n+1 `updates` (the world changed) or `corrects` (the person said it was wrong)
-- version n. A corrected version keeps its value and loses confidence; nothing is overwritten.
CREATE TABLE semantic_versions (
  node_id            uuid NOT NULL REFERENCES semantic_nodes(id) ON DELETE CASCADE,
  owner_id           text NOT NULL,
  version            integer NOT NULL,
  value              text NOT NULL,
  context            text NOT NULL DEFAULT '',
  confidence         real NOT NULL,
  link               text CHECK (link IN ('updates', 'corrects')),  -- to version - 1; null for version 1
  corrected          boolean NOT NULL DEFAULT false,               -- a later version corrects this one
  method             text NOT NULL,
  episode_id         uuid REFERENCES episodes(id) ON DELETE SET NULL,
  source_message_ids uuid[] NOT NULL DEFAULT '{}',
  created_at         timestamptz NOT NULL,
  PRIMARY KEY (node_id, version)
);

-- discovery: the episode the fact was found in; linked: an episode that repeated it (reinforcement);
-- evolution: an episode that changed its value.
CREATE TABLE semantic_episode_links (
  node_id    uuid NOT NULL REFERENCES semantic_nodes(id) ON DELETE CASCADE,
  episode_id uuid NOT NULL REFERENCES episodes(id) ON DELETE CASCADE,
  owner_id   text NOT NULL,
  role       text NOT NULL CHECK (role IN ('discovery', 'linked', 'evolution')),
  created_at timestamptz NOT NULL,
  PRIMARY KEY (node_id, episode_id, role)
);
CREATE INDEX semantic_links_by_episode ON semantic_episode_links (owner_id, episode_id);

CREATE TABLE semantic_relationships (
  id                   uuid PRIMARY KEY,
  owner_id             text NOT NULL,
  source_id            uuid NOT NULL REFERENCES semantic_nodes(id) ON DELETE CASCADE,
  target_id            uuid NOT NULL REFERENCES semantic_nodes(id) ON DELETE CASCADE,
  type                 text NOT NULL CHECK (type IN ('related', 'evolved_from', 'part_of', 'similar_to', 'opposite_to', 'temporal')),
  strength             real NOT NULL,
  description          text NOT NULL DEFAULT '',
  discovery_episode_id uuid REFERENCES episodes(id) ON DELETE SET NULL,
  created_at           timestamptz NOT NULL,
  last_reinforced      timestamptz NOT NULL,
  UNIQUE (source_id, target_id, type),
  CHECK (source_id <> target_id)
);
CREATE INDEX semantic_relationships_by_source ON semantic_relationships (owner_id, source_id);
CREATE INDEX semantic_relationships_by_target ON semantic_relationships (owner_id, target_id);

-- The keyword side of fact search: weighted term frequencies over label, value, context and keywords.
-- A few thousand facts per person: scored live (idf from this table), no impact precomputation.
CREATE TABLE semantic_terms (
  node_id  uuid NOT NULL REFERENCES semantic_nodes(id) ON DELETE CASCADE,
  owner_id text NOT NULL,
  term     text NOT NULL,
  tf       real NOT NULL,
  PRIMARY KEY (node_id, term)
);
CREATE INDEX semantic_terms_by_term ON semantic_terms (owner_id, term);

-- One vector per active fact (label and value), exact search (facts are few); archived facts have none.
CREATE TABLE semantic_embeddings (
  node_id   uuid PRIMARY KEY REFERENCES semantic_nodes(id) ON DELETE CASCADE,
  owner_id  text NOT NULL,
  model_id  text NOT NULL,
  embedding vector NOT NULL
);
CREATE INDEX semantic_embeddings_by_owner ON semantic_embeddings (owner_id, model_id);

-- Episodes waiting for knowledge discovery. Rows are written with the episode; without an LLM they
-- wait here, and the next run with one works through them. Deleting the episode drops its row.
CREATE TABLE semantic_discovery_queue (
  episode_id uuid PRIMARY KEY REFERENCES episodes(id) ON DELETE CASCADE,
  owner_id   text NOT NULL,
  queued_at  timestamptz NOT NULL,
  attempts   integer NOT NULL DEFAULT 0,
  last_error text
);
CREATE INDEX semantic_queue_by_owner ON semantic_discovery_queue (owner_id, queued_at);

-- Episodes from before semantic memory wait for discovery like new ones.
INSERT INTO semantic_discovery_queue (episode_id, owner_id, queued_at)
SELECT id, owner_id, created_at FROM episodes WHERE tier <> 'trash';
