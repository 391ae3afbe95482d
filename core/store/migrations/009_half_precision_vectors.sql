-- Vectors at half precision: a 384-dimension vector takes 776 bytes instead of 1,544, and cosine
-- similarity moves by less than a thousandth. Each model's nearest-neighbour index now holds one sign
-- bit per dimension (core/store/vectors.ts). The old indexes held a full copy of every vector; they are
-- dropped here and the new one is built the next time the model is used. Rewriting a column's type
-- writes the table anew, so nothing needs compacting afterwards.
DO $$
DECLARE old record;
BEGIN
  FOR old IN SELECT indexname FROM pg_indexes WHERE tablename = 'episode_embeddings' AND indexname LIKE 'episode_hnsw_%' LOOP
    EXECUTE format('DROP INDEX %I', old.indexname);
  END LOOP;
END $$;
ALTER TABLE episode_embeddings ALTER COLUMN embedding TYPE halfvec USING embedding::halfvec;
ALTER TABLE semantic_embeddings ALTER COLUMN embedding TYPE halfvec USING embedding::halfvec;
