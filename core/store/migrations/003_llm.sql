-- Nemori store, version 3: the LLM usage log and the knowledge graph the LLM episode builder extracts
-- (entities, their aliases and relationship triples). Number 002 belongs to the forgetting work; migrations are
-- applied by the set of versions already done, so either may land first.

-- One row per HTTP request to the LLM (the usage log). owner_id '' marks machine-level calls
-- (connection tests) that do not work on anyone's memory. API keys are never written here.
CREATE TABLE llm_usage (
  id          bigserial PRIMARY KEY,
  owner_id    text NOT NULL,
  at          timestamptz NOT NULL,
  operation   text NOT NULL,              -- episode.boundaries, episode.narrative, connection-test, …
  model       text NOT NULL,
  attempt     smallint NOT NULL,          -- 1 first request, 2… retries; the repair continues the count
  repair      boolean NOT NULL DEFAULT false,
  tokens_in   integer,                    -- from the reply's usage block; null when the server sends none
  tokens_out  integer,
  latency_ms  integer NOT NULL,
  ok          boolean NOT NULL,
  status      smallint,                   -- HTTP status; null when no response arrived
  error_code  text,
  error       text
);
CREATE INDEX llm_usage_by_owner ON llm_usage (owner_id, at DESC);

-- Entities are linked to stable ids within an owner: the same person in two chats is one row.
CREATE TABLE entities (
  id          uuid PRIMARY KEY,
  owner_id    text NOT NULL,
  name        text NOT NULL,              -- display name, as first seen
  entity_type text NOT NULL,              -- PERSON, PLACE, ORGANIZATION, PROJECT, …
  created_at  timestamptz NOT NULL,
  updated_at  timestamptz NOT NULL
);
CREATE INDEX entities_by_owner ON entities (owner_id, name);

-- Every normalised name an entity is known by (its own name included): linking looks keys up here.
CREATE TABLE entity_aliases (
  owner_id   text NOT NULL,
  alias_key  text NOT NULL,               -- core/episodes/entity-names.ts entityKey()
  entity_id  uuid NOT NULL REFERENCES entities(id) ON DELETE CASCADE,
  alias      text NOT NULL,
  PRIMARY KEY (owner_id, alias_key)
);
CREATE INDEX entity_aliases_by_entity ON entity_aliases (entity_id);

-- Which entities an episode mentions, with their role in it. Deleting the episode deletes these rows.
CREATE TABLE episode_entities (
  episode_id uuid NOT NULL REFERENCES episodes(id) ON DELETE CASCADE,
  entity_id  uuid NOT NULL REFERENCES entities(id) ON DELETE CASCADE,
  owner_id   text NOT NULL,
  role       text,
  PRIMARY KEY (episode_id, entity_id)
);
CREATE INDEX episode_entities_by_entity ON episode_entities (owner_id, entity_id);

-- Relationship triples [subject, predicate, object], each tied to the episode it was told in, so a
-- fact disappears with the episode that is its only source.
CREATE TABLE entity_relationships (
  id         uuid PRIMARY KEY,
  owner_id   text NOT NULL,
  episode_id uuid NOT NULL REFERENCES episodes(id) ON DELETE CASCADE,
  subject_id uuid NOT NULL REFERENCES entities(id) ON DELETE CASCADE,
  predicate  text NOT NULL,
  object_id  uuid NOT NULL REFERENCES entities(id) ON DELETE CASCADE,
  created_at timestamptz NOT NULL
);
CREATE INDEX entity_relationships_by_subject ON entity_relationships (owner_id, subject_id);
CREATE INDEX entity_relationships_by_object ON entity_relationships (owner_id, object_id);
CREATE INDEX entity_relationships_by_episode ON entity_relationships (episode_id);

-- An entity no episode mentions any more is removed with its aliases and triples, whoever deleted the
-- episode (a person, a rebuild, the forgetting job): forgetting an episode forgets what only it knew.
CREATE FUNCTION entities_drop_orphans() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM entities e
  WHERE e.id = OLD.entity_id AND e.owner_id = OLD.owner_id
    AND NOT EXISTS (SELECT 1 FROM episode_entities x WHERE x.entity_id = OLD.entity_id);
  RETURN NULL;
END
$$;
CREATE TRIGGER episode_entities_drop_orphans AFTER DELETE ON episode_entities
  FOR EACH ROW EXECUTE FUNCTION entities_drop_orphans();
