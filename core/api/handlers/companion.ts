import type { EngineContext } from '../../context.js';
import { IncomingConversation, parseIsoWithOffset } from '../../domain/conversation.js';
import { localDate } from '../../episodes/describe.js';
import { processConversation } from '../../episodes/process.js';
import type { DiscoveryJobs } from '../../semantic/jobs.js';
import type { Handlers, HandlerEnv } from '../handler.js';
import { loadContext, type CallOp } from './load-context.js';

export type { CallOp } from './load-context.js';

/** This machine's UTC offset at `at`, in minutes (what a message without a time was said in). */
export const machineOffset = (at: Date): number => -at.getTimezoneOffset();

/**
 * What happens to a conversation's new messages after `addMemory` stored them, without the caller
 * waiting: for now, the episode-building path imports use (`processConversation`: the heuristic tail
 * merge, or the LLM builder), one run per conversation at a time, and one more run when messages
 * arrived during it. To be replaced by the live "open tail" (boundaries as turns arrive, idle timeout):
 * this is the only place that decides it.
 */
export function episodesBehind(ctx: EngineContext, discovery: DiscoveryJobs) {
  const running = new Map<string, { again: boolean; done: Promise<void> }>();
  let stopped = false;
  const settled = async () => {
    while (running.size > 0) await Promise.all([...running.values()].map((r) => r.done));
  };
  return {
    /** New messages were stored in this conversation. */
    stored(ownerId: string, conversationId: string): void {
      if (stopped) return;
      const key = `${ownerId}\u0000${conversationId}`;
      const current = running.get(key);
      if (current) {
        current.again = true;
        return;
      }
      const run = { again: true, done: Promise.resolve() };
      running.set(key, run);
      run.done = (async () => {
        // The caller's answer goes out first.
        await new Promise<void>((resolve) => setImmediate(resolve));
        try {
          while (run.again && !stopped && ctx.store.isOpen) {
            run.again = false;
            await processConversation(ctx, ownerId, conversationId);
            discovery.kick(ownerId);
          }
        } catch (e) {
          ctx.warn(`the episodes of the messages just stored are not built yet (${(e as Error).message}); the next messages or \`nemori rebuild\` build them`);
        } finally {
          running.delete(key);
        }
      })();
    },
    /** Every run started so far has finished. */
    settled,
    async stop(): Promise<void> {
      stopped = true;
      await settled();
    },
  };
}
export type EpisodesBehind = ReturnType<typeof episodesBehind>;

export function companionHandlers({ ctx }: HandlerEnv, behind: EpisodesBehind, op: CallOp): Handlers<'addMemory' | 'loadContext'> {
  return {
    async addMemory(i) {
      const now = ctx.clock.now();
      const messages = i.messages.map((m) => {
        const { at, utcOffsetMin } = m.time ? parseIsoWithOffset(m.time) : { at: now, utcOffsetMin: machineOffset(now) };
        return { externalId: m.id, speaker: m.speaker, role: m.role, text: m.text, sentAt: at, utcOffsetMin };
      });
      const first = messages[0]!;
      const c = IncomingConversation.parse({
        source: i.source,
        externalId: i.conversationId ?? `chat-${localDate(first.sentAt, first.utcOffsetMin)}`,
        title: i.title,
        participants: [...new Set(messages.map((m) => m.speaker))],
        messages,
      });
      // The raw messages, at once and in one transaction, the way imports store them (deduplicated:
      // the same ids, or the same speaker, time and text, are stored once).
      const { id, stored, ids } = await ctx.store.transaction(async (r) => {
        const { id } = await r.conversations.upsert(i.ownerId, c, now);
        const stored = await r.conversations.addMessages(i.ownerId, id, c);
        return { id, stored, ids: await r.conversations.idsOf(i.ownerId, id, c) };
      });
      if (stored > 0) behind.stored(i.ownerId, id);
      return { conversationId: c.externalId, stored, messageIds: ids.map((x) => x ?? '') };
    },

    loadContext: (i) => loadContext(ctx, op, i),
  };
}
