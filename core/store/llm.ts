import type { EpisodeDraft } from '../domain/episode.js';
import type { UsageEntry } from '../llm/usage.js';
import { Params, type Sql } from './sql.js';
import { settingsRepo } from './settings.js';

/** Totals of the usage log over some rows. */
export interface UsageTotals {
  requests: number;
  ok: number;
  failed: number;
  tokensIn: number;
  tokensOut: number;
  latencyMs: number;
}

export interface UsageByOperation extends UsageTotals {
  operation: string;
  model: string;
}

/** One episode of a conversation that has something to rebuild, in time order. */
export interface RebuildRow {
  id: string;
  conversationId: string;
  status: string;
  builder: string;
  /** Forgetting tier (migration 002): trashed episodes are never rebuilt. */
  tier: string;
  messageCount: number;
}

const SETTINGS_KEY = 'llm';

/**
 * The LLM's side of the store: the usage log, the machine-wide LLM settings, and the episode
 * queries `rebuildEpisodes` needs (find what to upgrade, rewrite an episode in place).
 */
export function llmRepo(q: Sql) {
  const totals = (where: string) => `
    SELECT count(*)::int AS requests, count(*) FILTER (WHERE ok)::int AS ok, count(*) FILTER (WHERE NOT ok)::int AS failed,
           coalesce(sum(tokens_in), 0)::int AS tokens_in, coalesce(sum(tokens_out), 0)::int AS tokens_out,
           coalesce(sum(latency_ms), 0)::int AS latency_ms
    FROM llm_usage WHERE ${where}`;
  type TotalsRow = { requests: number; ok: number; failed: number; tokens_in: number; tokens_out: number; latency_ms: number };
  const toTotals = (r: TotalsRow): UsageTotals => ({ requests: r.requests, ok: r.ok, failed: r.failed, tokensIn: r.tokens_in, tokensOut: r.tokens_out, latencyMs: r.latency_ms });

  return {
    async logUsage(e: UsageEntry): Promise<void> {
      await q.query(
        `INSERT INTO llm_usage (owner_id, at, operation, model, attempt, repair, tokens_in, tokens_out, latency_ms, ok, status, error_code, error)
         VALUES ($1,$2,$3,$4,$5,$6,$7,$8,$9,$10,$11,$12,$13)`,
        [e.ownerId, e.at, e.operation, e.model, e.attempt, e.repair, e.tokensIn, e.tokensOut, e.latencyMs, e.ok, e.status, e.errorCode, e.error],
      );
    },

    /** The usage of an owner; `withMachine` adds the machine-level calls (owner ''), never another owner's. */
    async usage(ownerId: string, o: { since?: Date | undefined; limit: number; withMachine?: boolean }): Promise<{ totals: UsageTotals; byOperation: UsageByOperation[]; recent: UsageEntry[] }> {
      const p = new Params();
      const owners = o.withMachine ? [ownerId, ''] : [ownerId];
      const where = `owner_id = ANY(${p.add(owners)}::text[])${o.since ? ` AND at >= ${p.add(o.since)}` : ''}`;
      const t = await q.query<TotalsRow>(totals(where), p.values);
      const by = await q.query<TotalsRow & { operation: string; model: string }>(
        `SELECT operation, model, count(*)::int AS requests, count(*) FILTER (WHERE ok)::int AS ok, count(*) FILTER (WHERE NOT ok)::int AS failed,
                coalesce(sum(tokens_in), 0)::int AS tokens_in, coalesce(sum(tokens_out), 0)::int AS tokens_out, coalesce(sum(latency_ms), 0)::int AS latency_ms
         FROM llm_usage WHERE ${where} GROUP BY operation, model ORDER BY operation, model`,
        p.values,
      );
      const recent = await q.query<{
        owner_id: string; at: Date; operation: string; model: string; attempt: number; repair: boolean; tokens_in: number | null; tokens_out: number | null;
        latency_ms: number; ok: boolean; status: number | null; error_code: UsageEntry['errorCode']; error: string | null;
      }>(`SELECT * FROM llm_usage WHERE ${where} ORDER BY at DESC, id DESC LIMIT ${p.add(o.limit)}`, p.values);
      return {
        totals: toTotals(t.rows[0]!),
        byOperation: by.rows.map((r) => ({ operation: r.operation, model: r.model, ...toTotals(r) })),
        recent: recent.rows.map((r) => ({
          ownerId: r.owner_id, at: r.at, operation: r.operation, model: r.model, attempt: r.attempt, repair: r.repair, tokensIn: r.tokens_in,
          tokensOut: r.tokens_out, latencyMs: r.latency_ms, ok: r.ok, status: r.status, errorCode: r.error_code, error: r.error,
        })),
      };
    },

    /** The LLM settings chosen through the API. Machine-wide (one LLM per installation), hence no owner. */
    getSettings: () => settingsRepo(q).get(SETTINGS_KEY),
    putSettings: (value: Record<string, unknown> | null) => settingsRepo(q).put(SETTINGS_KEY, value),

    /** Seed 001's data type of a conversation, which picks its episode builder. */
    async dataType(ownerId: string, conversationId: string): Promise<string> {
      const r = await q.query<{ data_type: string }>(`SELECT data_type FROM conversations WHERE owner_id = $1 AND id = $2`, [ownerId, conversationId]);
      return r.rows[0]?.data_type ?? 'conversation';
    },

    /**
     * Every episode (in time order) of the conversations that have something to rebuild: episodes
     * marked `needs_rebuild`, or with `heuristic` every heuristic episode. The caller groups the
     * marked ones into runs of neighbours.
     */
    async rebuildCandidates(ownerId: string, scope: 'needs_rebuild' | 'heuristic'): Promise<RebuildRow[]> {
      const marked = scope === 'heuristic' ? `x.builder = 'heuristic'` : `x.processing_status = 'needs_rebuild'`;
      const r = await q.query<{ id: string; conversation_id: string; processing_status: string; builder: string; tier: string; message_count: number }>(
        `SELECT e.id, e.conversation_id, e.processing_status, e.builder, e.tier,
                (SELECT count(*)::int FROM messages m WHERE m.owner_id = e.owner_id AND m.episode_id = e.id) AS message_count
         FROM episodes e
         WHERE e.owner_id = $1 AND e.conversation_id IN (
           SELECT x.conversation_id FROM episodes x WHERE x.owner_id = $1 AND x.conversation_id IS NOT NULL AND ${marked})
         ORDER BY e.conversation_id, e.start_at, e.id`,
        [ownerId],
      );
      return r.rows.map((x) => ({ id: x.id, conversationId: x.conversation_id, status: x.processing_status, builder: x.builder, tier: x.tier, messageCount: x.message_count }));
    },

    /**
     * Makes an episode's messages pending again (no episode, not processed), in the transaction that
     * is about to delete or rebuild it: if the work after it never commits, they are simply rebuilt.
     */
    async releaseMessages(ownerId: string, episodeId: string): Promise<void> {
      await q.query(`UPDATE messages SET episode_id = NULL, processed = false WHERE owner_id = $1 AND episode_id = $2`, [ownerId, episodeId]);
    },

    /**
     * Rewrites an episode in place from a new draft: same id, same owner and conversation, and what a
     * person did with it (recall count, last access, creation time) kept. Indexes are the caller's job,
     * in the same transaction. The new importance is also the new base the forgetting pass starts from.
     */
    async rewriteEpisode(ownerId: string, id: string, d: EpisodeDraft, now: Date): Promise<boolean> {
      const r = await q.query(
        `UPDATE episodes SET episode_type = $3, level = $4, title = $5, content = $6, summary = $7, start_at = $8, end_at = $9,
           utc_offset_min = $10, metadata = $11, structured_data = $12, keywords = $13, importance = $14, builder = $15,
           processing_status = $16, processing_version = $17, updated_at = $18, base_importance = $14
         WHERE owner_id = $1 AND id = $2`,
        [ownerId, id, d.episodeType, d.level, d.title, d.content, d.summary, d.temporal.start, d.temporal.end, d.temporal.utcOffsetMin,
         JSON.stringify(d.metadata), JSON.stringify(d.structuredData), d.keywords, d.importance, d.builder, d.processingStatus,
         d.processingVersion, now],
      );
      return (r.affectedRows ?? 0) > 0;
    },
  };
}
export type LlmRepo = ReturnType<typeof llmRepo>;
