import { createEpisode, deleteEpisode, rebuildIndexes, recallEpisode, updateEpisode } from '../../episodes/lifecycle.js';
import { retellEpisodes } from '../../episodes/retell.js';
import { filterBackupsAfter } from '../../forgetting/backup-secrets.js';
import { scrubSecrets } from '../../forgetting/secrets.js';
import { processPending } from '../../episodes/process.js';
import { reindexFacts } from '../../facts/learn.js';
import { decodeCursor, encodeCursor } from '../cursor.js';
import { localDate } from '../../text/describe.js';
import type { Handlers, HandlerEnv } from '../handler.js';
import { episodeView, messageView } from '../views.js';
import { SPOKEN_AHEAD_MS, upcomingMentions } from '../../retrieval/upcoming.js';
import { formatClock } from '../../text/clock-time.js';

/** Turns just said that no episode holds yet, read for what they say of the days ahead. */
const UNBUILT_READ = 100;

export function episodeHandlers({
  ctx,
  live,
}: HandlerEnv): Handlers<
  'getEpisode' | 'listEpisodes' | 'createEpisode' | 'updateEpisode' | 'deleteEpisode' | 'listUpcoming' | 'rebuildIndexes'
> {
  const { store } = ctx;
  return {
    async getEpisode(i) {
      const episode = await recallEpisode(ctx, i.ownerId, i.id);
      const messages = await store.read.conversations.messagesOfEpisodes(i.ownerId, [i.id]);
      return { episode: episodeView(episode), messages: messages.map(messageView) };
    },

    async listEpisodes(i) {
      const page = await store.read.episodes.list(i.ownerId, {
        limit: i.limit + 1,
        since: i.since,
        until: i.until,
        episodeTypes: i.episodeTypes,
        minImportance: i.minImportance,
        importSources: i.importSources,
        before: i.cursor ? (({ at, id }) => ({ start: at, id }))(decodeCursor(i.cursor)) : undefined,
      });
      const more = page.length > i.limit;
      const episodes = page.slice(0, i.limit);
      const last = episodes.at(-1);
      return { episodes: episodes.map(episodeView), nextCursor: more && last ? encodeCursor(last.temporal.start, last.id) : null };
    },

    async createEpisode(i) {
      const { start, end, utcOffsetMin, ...rest } = i.episode;
      const e = await createEpisode(ctx, i.ownerId, {
        ...rest,
        temporal: { start, end: end ?? start, utcOffsetMin },
        builder: 'manual',
        processingStatus: 'ready',
        processingVersion: 'manual-1',
      });
      return episodeView(e);
    },

    async updateEpisode(i) {
      return episodeView(await updateEpisode(ctx, i.ownerId, i.id, i.patch));
    },

    async deleteEpisode(i) {
      await deleteEpisode(ctx, i.ownerId, i.id);
      return { deleted: true as const };
    },

    async listUpcoming(i) {
      const now = i.now ?? ctx.clock.now();
      const offset = i.utcOffsetMin ?? -now.getTimezoneOffset();
      const since = new Date(now.getTime() - SPOKEN_AHEAD_MS);
      const unbuilt = await store.read.conversations.recentPending(i.ownerId, since, now, UNBUILT_READ);
      const found = await upcomingMentions(ctx, i.ownerId, now, offset, { days: i.days, back: i.daysBack, limit: i.limit, unbuilt });
      return {
        today: localDate(now, offset),
        items: found.map((u) => ({
          day: u.day,
          ...(u.until ? { until: u.until } : {}),
          ...(u.clock === undefined ? {} : { at: formatClock(u.clock) }),
          goneBy: u.goneBy,
          episodeId: u.message.episodeId,
          message: messageView(u.message),
          text: u.text,
          ...(u.later ? { later: { message: messageView(u.later.message), text: u.later.text } } : {}),
          ...(u.answers ? { answers: { message: messageView(u.answers.message), text: u.answers.text } } : {}),
        })),
      };
    },

    async rebuildIndexes(i, opts) {
      const started = new Date();
      // Pending messages include live turns: never built beside their tail's rebuild (core/jobs/live-building.ts).
      const episodes = await live.exclusive(async () => {
        // Secrets older privacy rules let through go first: what is built and indexed next is built from their placeholders.
        const { secrets } = await scrubSecrets(ctx, i.ownerId, { signal: opts.signal });
        await processPending(ctx, i.ownerId);
        // Their keyword entries follow with the whole index, rebuilt next.
        const retold = await retellEpisodes(ctx, i.ownerId, {
          keywordEntries: false,
          signal: opts.signal,
          onProgress: (done, total) => opts.onProgress?.({ operation: 'rebuildIndexes', phase: 'retell', done, total }),
        });
        const indexed = await rebuildIndexes(ctx, i.ownerId, {
          reembed: i.reembed,
          onProgress: (done, total) => opts.onProgress?.({ operation: 'rebuildIndexes', phase: 'index', done, total }),
        });
        return { ...indexed, retold, secrets };
      });
      const facts = await reindexFacts(ctx, i.ownerId, { reembed: i.reembed });
      // Backups made before hold what was just taken out: filtered after the memory itself, outside its lock.
      const backups = (await filterBackupsAfter(ctx, episodes.secrets, started, { signal: opts.signal })) ?? { filtered: 0, sealed: 0 };
      return { ...episodes, backups, facts: facts.facts, factsEmbedded: facts.embedded };
    },
  };
}
