-- The planner reads how wide a period is against the statistics of episodes' spans (021), which only
-- ANALYZE gathers, and the store analyzes as it grows: a big store the upgrade gave the index went on
-- without them, planned every period as a thousand episodes, and read twenty years' worth through the
-- index (a hybrid search over all of 100k episodes: 0.63 s, 21 ms with them).
ANALYZE episodes;
