-- Nemori store, version 1: raw conversations and messages, episodes, their BM25 and vector indexes.
-- Every table carries owner_id and every query filters on it: owners never see each other's data.

CREATE EXTENSION IF NOT EXISTS vector;

-- One imported or API-fed conversation: the raw event data for the conversation data type.
CREATE TABLE conversations (
  id                 uuid PRIMARY KEY,
  owner_id           text NOT NULL,
  source             text NOT NULL,           -- importer format or 'api'
  external_id        text NOT NULL,           -- id inside the source, stable across re-imports
  data_type          text NOT NULL DEFAULT 'conversation',
  title              text,
  participants       jsonb NOT NULL DEFAULT '[]',
  metadata           jsonb NOT NULL DEFAULT '{}',
  processed          boolean NOT NULL DEFAULT false,
  processing_version text,
  created_at         timestamptz NOT NULL,
  updated_at         timestamptz NOT NULL,
  UNIQUE (owner_id, source, external_id)
);

-- Messages are stored before anything is derived from them; dedupe_key makes re-import idempotent.
CREATE TABLE messages (
  id              uuid PRIMARY KEY,
  owner_id        text NOT NULL,
  conversation_id uuid NOT NULL REFERENCES conversations(id) ON DELETE CASCADE,
  external_id     text,
  dedupe_key      text NOT NULL,              -- external id, or a hash of speaker + time + text
  seq             integer NOT NULL,           -- order inside the conversation as imported
  speaker         text NOT NULL,
  role            text NOT NULL,              -- user | assistant | other | system
  content         text NOT NULL,
  sent_at         timestamptz NOT NULL,
  utc_offset_min  integer NOT NULL DEFAULT 0, -- the sender's offset, so "yesterday" resolves in local time
  content_hash    text NOT NULL,
  attachments     jsonb NOT NULL DEFAULT '[]',
  metadata        jsonb NOT NULL DEFAULT '{}',
  processed       boolean NOT NULL DEFAULT false, -- an episode was built from it (even if later deleted)
  UNIQUE (owner_id, conversation_id, dedupe_key)
);
CREATE INDEX messages_pending ON messages (owner_id, conversation_id, sent_at) WHERE NOT processed;

-- An episode: every field, with temporal info flattened into columns so it can be filtered.
CREATE TABLE episodes (
  id                 uuid PRIMARY KEY,
  owner_id           text NOT NULL,
  conversation_id    uuid REFERENCES conversations(id) ON DELETE SET NULL,
  episode_type       text NOT NULL,
  level              smallint NOT NULL,
  title              text NOT NULL,
  content            text NOT NULL,
  summary            text NOT NULL,
  start_at           timestamptz NOT NULL,
  end_at             timestamptz NOT NULL,
  utc_offset_min     integer NOT NULL DEFAULT 0,
  metadata           jsonb NOT NULL DEFAULT '{}',  -- entities, topics, emotions, key points, time references, custom fields
  structured_data    jsonb NOT NULL DEFAULT '{}',
  keywords           text[] NOT NULL DEFAULT '{}',
  importance         real NOT NULL DEFAULT 0.5,
  recall_count       integer NOT NULL DEFAULT 0,
  last_accessed      timestamptz,
  builder            text NOT NULL,                -- heuristic | llm | manual
  processing_status  text NOT NULL DEFAULT 'ready',
  processing_version text NOT NULL,
  created_at         timestamptz NOT NULL,
  updated_at         timestamptz NOT NULL
);
CREATE INDEX episodes_by_time ON episodes (owner_id, start_at DESC);
CREATE INDEX episodes_by_conversation ON episodes (owner_id, conversation_id, start_at);

-- Which messages an episode was built from: provenance for every search hit.
ALTER TABLE messages ADD COLUMN episode_id uuid REFERENCES episodes(id) ON DELETE SET NULL;
CREATE INDEX messages_by_episode ON messages (episode_id);

-- BM25F index kept in the database, impact-ordered: each posting stores its term's saturated BM25F
-- weight in the document (0..1, computed when the document is indexed from the field frequencies,
-- the field weights and the owner's average field lengths at that time). A query multiplies it by the
-- term's live idf. The index on (term, impact DESC) lets a query read only the strongest postings of
-- a very common term instead of all of them (core/store/bm25.ts).
CREATE TABLE bm25_postings (
  owner_id   text NOT NULL,
  term       text NOT NULL,
  episode_id uuid NOT NULL REFERENCES episodes(id) ON DELETE CASCADE,
  impact     real NOT NULL
);
CREATE INDEX bm25_postings_by_impact ON bm25_postings (owner_id, term, impact DESC) INCLUDE (episode_id);
CREATE INDEX bm25_postings_by_episode ON bm25_postings (episode_id) INCLUDE (term, impact);

CREATE TABLE bm25_docs (
  episode_id   uuid PRIMARY KEY REFERENCES episodes(id) ON DELETE CASCADE,
  owner_id     text NOT NULL,
  len_title    integer NOT NULL,
  len_summary  integer NOT NULL,
  len_entities integer NOT NULL,
  len_topics   integer NOT NULL,
  len_content  integer NOT NULL
);

-- Document frequency per term and corpus totals per owner, maintained with the postings.
CREATE TABLE bm25_terms (
  owner_id text NOT NULL,
  term     text NOT NULL,
  df       integer NOT NULL,
  PRIMARY KEY (owner_id, term)
);
CREATE TABLE bm25_stats (
  owner_id  text PRIMARY KEY,
  doc_count integer NOT NULL,
  len_title    bigint NOT NULL,    -- summed field lengths, for the average field length
  len_summary  bigint NOT NULL,
  len_entities bigint NOT NULL,
  len_topics   bigint NOT NULL,
  len_content  bigint NOT NULL
);

-- Vectors live apart from episodes so a model change (or archiving) drops them without touching
-- the episode; model_id is kept with every vector so spaces are never mixed.
CREATE TABLE episode_embeddings (
  episode_id uuid PRIMARY KEY REFERENCES episodes(id) ON DELETE CASCADE,
  owner_id   text NOT NULL,
  model_id   text NOT NULL,
  embedding  vector NOT NULL
);
-- The HNSW index is a partial expression index per model (dimension cast), created by the store
-- when a model is first used: see core/store/vectors.ts.
CREATE INDEX episode_embeddings_by_owner ON episode_embeddings (owner_id, model_id);

CREATE TABLE settings (
  key   text PRIMARY KEY,
  value jsonb NOT NULL
);
