-- How often an episode was recalled, and when last, is written at every loadContext and marked search
-- (~8 episodes each). On the episode's own row (~1.5 kB, on full pages) that wrote the whole row again,
-- with a new entry in each of the table's indexes, and after a checkpoint whole pages into the WAL: 1.7 ms
-- of a loadContext at 100k episodes on average, up to 17 ms. Here a recall is a narrow row, written
-- only for an episode once it is recalled, with room on its page for the next count (a HOT update: no
-- index entry).
CREATE TABLE episode_recalls (
  episode_id    uuid PRIMARY KEY REFERENCES episodes(id) ON DELETE CASCADE,
  owner_id      text NOT NULL,
  recall_count  integer NOT NULL,
  last_accessed timestamptz
) WITH (fillfactor = 70);

INSERT INTO episode_recalls (episode_id, owner_id, recall_count, last_accessed)
SELECT id, owner_id, recall_count, last_accessed FROM episodes WHERE recall_count > 0 OR last_accessed IS NOT NULL;

ALTER TABLE episodes DROP COLUMN recall_count, DROP COLUMN last_accessed;
