import type { Sql } from './sql.js';

/**
 * One owner's memory as rows, table by table, for the open export (core/ingest/export-archive.ts) and
 * for reading it back. Rows travel as Postgres makes them JSON (`to_jsonb`) and come back through
 * `jsonb_populate_recordset`, so every type (times, arrays, vectors, JSON) makes the round trip exactly.
 */

/** A table of the export: its file in the archive, and whether it is derived (an index Nemori can rebuild). */
export interface MemoryTable {
  table: string;
  file: string;
  /** The columns rows are read in order of (stable pages). */
  order: string;
  derived: boolean;
  /** A bigserial id: kept, and the sequence moved past it after a read-back. */
  serial?: boolean;
  /**
   * The store schema version since which its rows have their present shape. An export written by an
   * older store carries rows of another shape: a derived table's are left out and rebuilt instead.
   */
  shapeSince?: number;
}

/** In the order they are read back: every table after the tables it references. */
export const MEMORY_TABLES: readonly MemoryTable[] = [
  { table: 'conversations', file: 'conversations.jsonl', order: 'id', derived: false },
  { table: 'episodes', file: 'episodes.jsonl', order: 'id', derived: false },
  { table: 'episode_recalls', file: 'episode_recalls.jsonl', order: 'episode_id', derived: false },
  { table: 'messages', file: 'messages.jsonl', order: 'id', derived: false },
  { table: 'entities', file: 'entities.jsonl', order: 'id', derived: false },
  { table: 'entity_aliases', file: 'entity_aliases.jsonl', order: 'alias_key', derived: false },
  { table: 'episode_entities', file: 'episode_entities.jsonl', order: 'episode_id, entity_id', derived: false },
  { table: 'entity_relationships', file: 'entity_relationships.jsonl', order: 'id', derived: false },
  { table: 'semantic_nodes', file: 'facts.jsonl', order: 'id', derived: false },
  { table: 'semantic_versions', file: 'fact_versions.jsonl', order: 'node_id, version', derived: false },
  { table: 'semantic_episode_links', file: 'fact_episode_links.jsonl', order: 'node_id, episode_id, role', derived: false },
  { table: 'semantic_relationships', file: 'fact_relationships.jsonl', order: 'id', derived: false },
  { table: 'semantic_discovery_queue', file: 'discovery_queue.jsonl', order: 'episode_id', derived: false },
  { table: 'forgetting_runs', file: 'forgetting_runs.jsonl', order: 'id', derived: false, serial: true },
  { table: 'import_preferences', file: 'import_preferences.jsonl', order: 'source', derived: false },
  { table: 'llm_usage', file: 'llm_usage.jsonl', order: 'id', derived: false, serial: true },
  { table: 'episode_embeddings', file: 'index/episode_embeddings.jsonl', order: 'episode_id', derived: true },
  { table: 'semantic_embeddings', file: 'index/fact_embeddings.jsonl', order: 'node_id', derived: true },
  { table: 'bm25_docs', file: 'index/bm25_docs.jsonl', order: 'episode_id', derived: true, shapeSince: 8 },
  { table: 'bm25_postings', file: 'index/bm25_postings.jsonl', order: 'term_id, docs', derived: true, shapeSince: 8 },
  { table: 'bm25_terms', file: 'index/bm25_terms.jsonl', order: 'term', derived: true, shapeSince: 8 },
  { table: 'bm25_stats', file: 'index/bm25_stats.jsonl', order: 'owner_id', derived: true, shapeSince: 8 },
  { table: 'bm25_parked', file: 'index/bm25_parked.jsonl', order: 'episode_id', derived: true },
  { table: 'semantic_terms', file: 'index/fact_terms.jsonl', order: 'node_id, term', derived: true },
];

const PAGE = 5000;
/** Settings fields that are credentials (`apiKey`, `token`, `accessToken`, …; not `maxTokens`): never written into an export. */
const CREDENTIAL = /^(api_?key|secret|password|passphrase|\w*token)$/i;

function withoutCredentials(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(withoutCredentials);
  if (typeof v !== 'object' || v === null) return v;
  return Object.fromEntries(Object.entries(v).flatMap(([k, x]) => (CREDENTIAL.test(k) ? [] : [[k, withoutCredentials(x)]])));
}

export function memoryTableReads(q: Sql) {
  return {
    /** An owner's rows of one table as JSON objects, a page at a time. */
    async *rows(ownerId: string, t: MemoryTable): AsyncGenerator<Record<string, unknown>[]> {
      for (let offset = 0; ; offset += PAGE) {
        const r = await q.query<{ row: Record<string, unknown> }>(
          `SELECT to_jsonb(t) AS row FROM ${t.table} t WHERE owner_id = $1 ORDER BY ${t.order} LIMIT ${PAGE} OFFSET $2`,
          [ownerId, offset],
        );
        if (r.rows.length > 0) yield r.rows.map((x) => x.row);
        if (r.rows.length < PAGE) return;
      }
    },

    /** The machine's settings, credentials left out (an LLM API key stays on this machine). */
    async settings(): Promise<{ key: string; value: unknown }[]> {
      const r = await q.query<{ key: string; value: unknown }>(`SELECT key, value FROM settings ORDER BY key`);
      return r.rows.map((x) => ({ key: x.key, value: withoutCredentials(x.value) }));
    },

    /** How many rows an owner has in each table. */
    async counts(ownerId: string): Promise<Record<string, number>> {
      const out: Record<string, number> = {};
      for (const t of MEMORY_TABLES) {
        const r = await q.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${t.table} WHERE owner_id = $1`, [ownerId]);
        out[t.table] = r.rows[0]?.n ?? 0;
      }
      return out;
    },
  };
}

export function memoryTableWrites(q: Sql) {
  return {
    /** Rows read back into one table, as the owner given (whatever owner they were exported from). */
    async insert(ownerId: string, t: MemoryTable, rows: readonly Record<string, unknown>[]): Promise<void> {
      if (rows.length === 0) return;
      await q.query(`INSERT INTO ${t.table} SELECT * FROM jsonb_populate_recordset(NULL::${t.table}, $1::jsonb)`, [
        JSON.stringify(rows.map((row) => ({ ...row, owner_id: ownerId }))),
      ]);
    },

    /** After serial ids were read back: new rows are numbered after them. */
    async advanceSequence(t: MemoryTable): Promise<void> {
      await q.query(`SELECT setval(pg_get_serial_sequence('${t.table}', 'id'), GREATEST((SELECT max(id) FROM ${t.table}), 1))`);
    },

    /** Settings read back: the export's keys replace this machine's (its credentials stay). */
    async mergeSettings(settings: readonly { key: string; value: unknown }[]): Promise<void> {
      for (const s of settings) {
        await q.query(
          `INSERT INTO settings (key, value) VALUES ($1, $2::jsonb) ON CONFLICT (key) DO UPDATE SET value = settings.value || EXCLUDED.value`,
          [s.key, JSON.stringify(s.value)],
        );
      }
    },
  };
}
