-- Which rules told each episode (core/episodes/retell.ts): an engine that stays open looks for the
-- episodes older rules told once after it opens. Read row by row that look took ~0.6 s at 20k episodes
-- (the whole table, every version parsed) even when there was nothing to tell again; by this index,
-- the versions other than today's are two empty ranges.
CREATE INDEX episodes_by_version ON episodes (owner_id, builder, processing_version);
