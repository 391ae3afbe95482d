-- Episode vectors in half precision (pgvector's halfvec): half the bytes in the table and in each HNSW
-- graph. Unit-length embeddings lose nothing that moves a cosine rank beyond the third decimal. Each
-- model's HNSW index (core/store/vectors.ts) is rebuilt over the halfvec cast, under the same name.
DO $$
DECLARE
  defs text[] := ARRAY(SELECT indexdef FROM pg_indexes WHERE tablename = 'episode_embeddings' AND indexname LIKE 'episode_hnsw_%');
  d text;
BEGIN
  FOR d IN SELECT indexname FROM pg_indexes WHERE tablename = 'episode_embeddings' AND indexname LIKE 'episode_hnsw_%' LOOP
    EXECUTE format('DROP INDEX %I', d);
  END LOOP;
  ALTER TABLE episode_embeddings ALTER COLUMN embedding TYPE halfvec USING embedding::halfvec;
  FOREACH d IN ARRAY defs LOOP
    EXECUTE replace(replace(d, '::vector(', '::halfvec('), 'vector_cosine_ops', 'halfvec_cosine_ops');
  END LOOP;
END $$;
