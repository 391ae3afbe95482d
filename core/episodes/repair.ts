import type { EngineContext } from '../context/engine-context.js';
import { rebuildKeywordIndex } from './lifecycle.js';

/** What opening a store put right, and what it found but could not. */
export interface RepairReport {
  repaired: string[];
  unrepaired: string[];
}

/**
 * Run when an engine opens: the store's cheap integrity counts (core/store/integrity.ts), for every
 * owner, and the repairs that need nothing but the stored episodes — a keyword index missing episodes
 * or disagreeing with its totals is rebuilt; messages pointing at an episode that is gone become
 * pending again, for the next build. What cannot be put right from the store (episodes whose messages
 * are gone) is reported. Vectors are not made here: that needs the model, and a person who changed
 * models decides when (`nemori rebuild`).
 */
export async function repairOnOpen(ctx: EngineContext): Promise<RepairReport> {
  const report: RepairReport = { repaired: [], unrepaired: [] };
  for (const ownerId of await ctx.store.read.episodes.owners()) {
    const c = await ctx.store.read.integrity.counts(ownerId, null);
    if (c.episodesWithoutDoc > 0 || c.docsWithoutEpisode > 0 || c.statsMismatch) {
      const ids = await ctx.store.read.episodes.ids(ownerId);
      await rebuildKeywordIndex(ctx, ownerId, ids);
      report.repaired.push(
        `${ownerId}: the keyword index was missing ${c.episodesWithoutDoc} of ${ids.length} episodes, held ${c.docsWithoutEpisode} deleted ones${c.statsMismatch ? ' and its totals were wrong' : ''}; rebuilt it`,
      );
    }
    if (c.messagesWithoutEpisode > 0) {
      const n = await ctx.store.transaction((r) => r.integrity.releaseOrphanMessages(ownerId));
      report.repaired.push(`${ownerId}: ${n} messages pointed at episodes that are gone; they wait to be built again (\`nemori rebuild\`)`);
    }
    if (c.episodesWithoutMessages > 0)
      report.unrepaired.push(
        `${ownerId}: ${c.episodesWithoutMessages} episodes have lost their messages (their text is kept; their sources cannot be shown)`,
      );
  }
  return report;
}
