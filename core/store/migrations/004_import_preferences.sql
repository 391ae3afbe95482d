-- What a person told an import once, remembered per source format: which participant is "me".
CREATE TABLE import_preferences (
  owner_id   text NOT NULL,
  source     text NOT NULL,
  me         text NOT NULL,
  updated_at timestamptz NOT NULL,
  PRIMARY KEY (owner_id, source)
);
