import type { z } from 'zod';
import { IncomingConversation } from '../../domain/conversation.js';
import { importFiles, ingestConversation, ingestConversations } from '../../ingest/import.js';
import { instantSent } from '../../ingest/local-time.js';
import { withVectorIndexDeferred } from '../../episodes/vector-index.js';
import type { Handlers, HandlerEnv } from '../handler.js';
import type { ConversationInput } from '../imports-contract.js';

export function importHandlers({
  ctx,
  discovery,
  live,
}: HandlerEnv): Handlers<'ingestConversation' | 'ingestConversations' | 'importFiles'> {
  return {
    async ingestConversation(i) {
      // The conversation may be a live one (the same source and id): not built beside its tail's rebuild.
      const r = await live.exclusive(() => ingestConversation(ctx, i.ownerId, incoming(i.source, i.conversation)));
      // A companion feeding conversations live must not wait for the LLM to read them: discovery runs behind.
      if (r.episodesCreated > 0) discovery.kick(i.ownerId);
      return r;
    },

    async ingestConversations(i) {
      const given = i.conversations.map((c) => incoming(i.source, c));
      const conversations = await live.exclusive(() => ingestConversations(ctx, i.ownerId, given));
      if (conversations.some((r) => r.episodesCreated > 0)) discovery.kick(i.ownerId);
      return { conversations };
    },

    importFiles(i, o) {
      return withVectorIndexDeferred(ctx, i.ownerId, () =>
        importFiles(ctx, discovery, i, {
          signal: o.signal,
          ...(o.onProgress ? { onProgress: (p) => o.onProgress?.({ operation: 'importFiles', ...p }) } : {}),
        }),
      );
    },
  };
}

/** A conversation as the API takes it, as the store's input: each timestamp's own offset kept (instantSent). */
function incoming(source: string, conversation: z.infer<typeof ConversationInput>): IncomingConversation {
  return IncomingConversation.parse({
    source,
    externalId: conversation.id,
    title: conversation.title,
    participants: conversation.participants,
    messages: conversation.messages.map((m) => {
      const { at, utcOffsetMin } = instantSent(m.timestamp);
      return { externalId: m.id, speaker: m.speaker, role: m.role ?? 'other', text: m.text, sentAt: at, utcOffsetMin };
    }),
  });
}
