-- A message's content_hash (the SHA-256 of its text, 65 bytes as hex) was written and never read: a
-- message is recognised again by its import key (dedupe_key), which is derived from the same hash. The
-- column goes, and the table is rewritten once so its space comes back:
-- compact: messages
ALTER TABLE messages DROP COLUMN content_hash;
