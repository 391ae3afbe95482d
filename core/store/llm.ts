import type { UsageEntry } from '../llm/usage.js';
import { Params, type Sql } from './sql.js';
import { settingReads, settingWrites } from './settings.js';

/** The LLM's side of the store: the usage log, and the machine-wide LLM settings. */

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

const SETTINGS_KEY = 'llm';

/** Totals columns over a set of `llm_usage` rows. */
const totalsColumns = `count(*)::int AS requests, count(*) FILTER (WHERE ok)::int AS ok, count(*) FILTER (WHERE NOT ok)::int AS failed,
  coalesce(sum(tokens_in), 0)::int AS tokens_in, coalesce(sum(tokens_out), 0)::int AS tokens_out, coalesce(sum(latency_ms), 0)::int AS latency_ms`;
type TotalsRow = { requests: number; ok: number; failed: number; tokens_in: number; tokens_out: number; latency_ms: number };
const toTotals = (r: TotalsRow): UsageTotals => ({
  requests: r.requests,
  ok: r.ok,
  failed: r.failed,
  tokensIn: r.tokens_in,
  tokensOut: r.tokens_out,
  latencyMs: r.latency_ms,
});

export function llmReads(q: Sql) {
  const settings = settingReads(q);
  return {
    /** The usage of an owner; `withMachine` adds the machine-level calls (owner ''), never another owner's. */
    async usage(
      ownerId: string,
      o: { since?: Date | undefined; limit: number; withMachine?: boolean },
    ): Promise<{ totals: UsageTotals; byOperation: UsageByOperation[]; recent: UsageEntry[] }> {
      const p = new Params();
      const owners = o.withMachine ? [ownerId, ''] : [ownerId];
      const where = `owner_id = ANY(${p.add(owners)}::text[])${o.since ? ` AND at >= ${p.add(o.since)}` : ''}`;
      const t = await q.query<TotalsRow>(`SELECT ${totalsColumns} FROM llm_usage WHERE ${where}`, p.values);
      const by = await q.query<TotalsRow & { operation: string; model: string }>(
        `SELECT operation, model, ${totalsColumns} FROM llm_usage WHERE ${where} GROUP BY operation, model ORDER BY operation, model`,
        p.values,
      );
      const recent = await q.query<{
        owner_id: string;
        at: Date;
        operation: string;
        model: string;
        attempt: number;
        repair: boolean;
        tokens_in: number | null;
        tokens_out: number | null;
        latency_ms: number;
        ok: boolean;
        status: number | null;
        error_code: UsageEntry['errorCode'];
        error: string | null;
      }>(`SELECT * FROM llm_usage WHERE ${where} ORDER BY at DESC, id DESC LIMIT ${p.add(o.limit)}`, p.values);
      return {
        totals: toTotals(t.rows[0]!),
        byOperation: by.rows.map((r) => ({ operation: r.operation, model: r.model, ...toTotals(r) })),
        recent: recent.rows.map((r) => ({
          ownerId: r.owner_id,
          at: r.at,
          operation: r.operation,
          model: r.model,
          attempt: r.attempt,
          repair: r.repair,
          tokensIn: r.tokens_in,
          tokensOut: r.tokens_out,
          latencyMs: r.latency_ms,
          ok: r.ok,
          status: r.status,
          errorCode: r.error_code,
          error: r.error,
        })),
      };
    },

    /** The LLM settings chosen through the API. Machine-wide (one LLM per installation), hence no owner. */
    getSettings: () => settings.get(SETTINGS_KEY),
  };
}

export function llmWrites(q: Sql) {
  const settings = settingWrites(q);
  return {
    async logUsage(e: UsageEntry): Promise<void> {
      await q.query(
        `INSERT INTO llm_usage (owner_id, at, operation, model, attempt, repair, tokens_in, tokens_out, latency_ms, ok, status, error_code, error)
         VALUES ($1,$2,$3,$4,$5,$6,$7,$8,$9,$10,$11,$12,$13)`,
        [
          e.ownerId,
          e.at,
          e.operation,
          e.model,
          e.attempt,
          e.repair,
          e.tokensIn,
          e.tokensOut,
          e.latencyMs,
          e.ok,
          e.status,
          e.errorCode,
          e.error,
        ],
      );
    },

    putSettings: (value: Record<string, unknown> | null) => settings.put(SETTINGS_KEY, value),
  };
}
