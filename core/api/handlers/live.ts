import { NemoriError } from '../../domain/errors.js';
import { addTurns, findConversations } from '../../ingest/live.js';
import type { Handlers, HandlerEnv } from '../handler.js';

/** Live memory: turns are committed and acknowledged; their episodes are built behind (env.live). */
export function liveHandlers({ ctx, live }: HandlerEnv): Handlers<'addMemory' | 'endConversation'> {
  return {
    async addMemory(i) {
      const r = await addTurns(ctx, i);
      // Never waits for building, embedding or an LLM: the job runs behind this reply. Turns that were
      // all duplicates (a retry) change nothing, not even how long the conversation has been idle.
      if (r.stored > 0 || i.end === true) live.turnsAdded(i.ownerId, r.conversationId, i.end === true);
      return {
        conversationId: r.conversationId,
        key: r.key,
        stored: r.stored,
        duplicates: r.duplicates,
        redacted: r.redacted,
        messageIds: r.messageIds,
      };
    },

    async endConversation(i) {
      const found = await findConversations(ctx, i.ownerId, i.conversationId, i.source);
      if (found.length === 0) throw new NemoriError('NOT_FOUND', `no conversation ${i.conversationId}`);
      let closing = false;
      for (const c of found) {
        const open = (await ctx.store.read.episodes.openInConversation(i.ownerId, c.id)).length > 0;
        closing ||= open || !c.processed;
        live.close(i.ownerId, c.id);
      }
      return { conversationId: i.conversationId, closing };
    },
  };
}
