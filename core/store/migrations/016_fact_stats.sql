-- Fact keyword search scores with the owner's number of facts outside the trash and their average
-- length, which it counted over every fact at each query: 2–3 ms of a search at 10,000 facts, and the
-- summary's "N more did not fit" counted them again (3–4 ms). Kept here instead, by the facts' own
-- writes (as bm25_stats is for episodes): a trigger follows every row that enters, leaves or moves in
-- or out of the trash, changes owner or length, so no write path can forget it.
CREATE TABLE fact_stats (
  owner_id text PRIMARY KEY,
  facts    integer NOT NULL,           -- facts outside the trash
  term_len float8 NOT NULL             -- the sum of their keyword documents' weighted lengths
);
INSERT INTO fact_stats (owner_id, facts, term_len)
  SELECT owner_id, count(*), sum(term_len) FROM semantic_nodes WHERE tier <> 'trash' GROUP BY owner_id;

CREATE FUNCTION fact_stats_follow() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP <> 'INSERT' AND OLD.tier <> 'trash' THEN
    UPDATE fact_stats SET facts = facts - 1, term_len = term_len - OLD.term_len WHERE owner_id = OLD.owner_id;
  END IF;
  IF TG_OP <> 'DELETE' AND NEW.tier <> 'trash' THEN
    INSERT INTO fact_stats (owner_id, facts, term_len) VALUES (NEW.owner_id, 1, NEW.term_len)
      ON CONFLICT (owner_id) DO UPDATE SET facts = fact_stats.facts + 1, term_len = fact_stats.term_len + EXCLUDED.term_len;
  END IF;
  RETURN NULL;
END $$;
CREATE TRIGGER fact_stats_follow AFTER INSERT OR DELETE OR UPDATE OF owner_id, tier, term_len ON semantic_nodes
  FOR EACH ROW EXECUTE FUNCTION fact_stats_follow();
