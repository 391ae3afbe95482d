-- The episodes overlapping a period ("last week", the days since a plan was made) are found through
-- their spans: a search's period filter (core/store/episodes.ts, filterSql) was read as two
-- comparisons no index answered together — none held an episode's end — so a filtered search read
-- every episode, or walked much of the vector index, for the few the period held (a search naming
-- last week at 100k episodes: ~200 ms). An episode written with its end before its start still has a
-- span, from the earlier time to the later.
CREATE INDEX episodes_by_span ON episodes USING gist (tstzrange(least(start_at, end_at), greatest(start_at, end_at), '[]'));
