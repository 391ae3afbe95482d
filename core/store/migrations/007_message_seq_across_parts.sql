-- A long chat arrives in parts, and each part used to number its messages (seq) from 0 again, so two
-- messages of one conversation could share a number and "the turn after" (seq + 1) could be a turn of
-- another part. Renumbered in the order every reader uses (time, then the old number); new messages are
-- numbered after the conversation's last one.
UPDATE messages m SET seq = r.n
FROM (SELECT id, (row_number() OVER (PARTITION BY owner_id, conversation_id ORDER BY sent_at, seq, id) - 1)::int AS n
      FROM messages) r
WHERE m.id = r.id AND m.seq <> r.n;
