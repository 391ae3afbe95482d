import { IncomingConversation, parseIsoWithOffset } from '../../domain/conversation.js';
import { importFiles, ingestConversation } from '../../ingest/import.js';
import { withVectorIndexDeferred } from '../../episodes/vector-index.js';
import type { Handlers, HandlerEnv } from '../handler.js';

export function importHandlers({ ctx, discovery, live }: HandlerEnv): Handlers<'ingestConversation' | 'importFiles'> {
  return {
    async ingestConversation(i) {
      const c = IncomingConversation.parse({
        source: i.source,
        externalId: i.conversation.id,
        title: i.conversation.title,
        participants: i.conversation.participants,
        messages: i.conversation.messages.map((m) => {
          const { at, utcOffsetMin } = parseIsoWithOffset(m.timestamp);
          return { externalId: m.id, speaker: m.speaker, role: m.role ?? 'other', text: m.text, sentAt: at, utcOffsetMin };
        }),
      });
      // The conversation may be a live one (the same source and id): not built beside its tail's rebuild.
      const r = await live.exclusive(() => ingestConversation(ctx, i.ownerId, c));
      // A companion feeding conversations live must not wait for the LLM to read them: discovery runs behind.
      if (r.episodesCreated > 0) discovery.kick(i.ownerId);
      return r;
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
