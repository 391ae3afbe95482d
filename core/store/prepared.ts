import { parse, protocol, type messages, type PGlite, type Results, type Transaction } from '@electric-sql/pglite';
import type { PlanChoice, Sql } from './sql.js';

const { serialize } = protocol;
type BackendMessage = messages.BackendMessage;
type Send = (message: Uint8Array) => Promise<BackendMessage[]>;

/**
 * How many statements a connection keeps parsed. The app runs a few dozen distinct statements (a
 * search ~40), so this only bounds what SQL built with a varying number of clauses could leave behind.
 */
const KEEP = 128;

interface Statement {
  name: string;
  /** Parameter types, as Postgres inferred them: how each value is serialized. */
  types: number[];
  /** The statement's row description, which the result parser needs before the rows. */
  columns: BackendMessage[];
}

/**
 * A store's queries as named prepared statements. PGlite's `query` parses and plans every statement
 * afresh (an unnamed statement, each call); a named one is parsed once, and after five executions
 * Postgres keeps a generic plan when it costs no more than the ones planned for the values given.
 * At 100k episodes that was ~0.7 ms of parsing and planning for each of a search's five statements.
 *
 * Reads and writes keep their statements apart: write transactions plan with another random page cost
 * (see store.ts), and a generic plan keeps the settings it was planned with.
 */
export class PreparedStatements {
  private readonly statements = new Map<string, Statement>();
  private made = 0;

  constructor(
    private readonly db: PGlite,
    private readonly prefix: string,
  ) {}

  /** Queries outside any transaction: each waits, as PGlite's own do, for an open transaction to end. */
  outside(): Sql {
    const db = this.db;
    return {
      query: async <T>(text: string, params?: unknown[], o?: PlanChoice) => {
        const r = await db._runExclusiveTransaction(() => db.runExclusive(() => this.run<T>(text, params ?? [], o)));
        await db.syncToFs();
        return r;
      },
      exec: (text) => db.exec(text),
    };
  }

  /** Queries inside `tx`, which holds the database until it ends. */
  inside(tx: Transaction): Sql {
    return {
      query: <T>(text: string, params?: unknown[], o?: PlanChoice) => this.db.runExclusive(() => this.run<T>(text, params ?? [], o)),
      exec: (text) => tx.exec(text),
    };
  }

  private async run<T>(text: string, params: readonly unknown[], o: PlanChoice = {}): Promise<Results<T>> {
    const send = (message: Uint8Array) => this.db.execProtocolStream(message, { syncToFs: false });
    // Postgres chooses between a generic plan and one for the values as each run binds them: told to
    // plan for them, it does so for this run only (a plan kept does not heed settings made after it).
    // Set and reset within a transaction if one is open, so a rollback leaves them as it found them.
    const settings: [name: string, value: string][] = [];
    if (o.planEachRun || o.byIndex) settings.push(['plan_cache_mode', 'force_custom_plan']);
    if (o.byIndex) settings.push(['enable_seqscan', 'off']);
    if (settings.length) await send(serialize.query(settings.map(([name, value]) => `SET ${name} = ${value};`).join(' ')));
    try {
      return await this.bound<T>(text, params, send);
    } finally {
      // In a transaction this statement aborted, the reset is refused, and the rollback undoes the set.
      if (settings.length) {
        const reset = settings.map(([name]) => `RESET ${name};`).join(' ');
        await this.db.execProtocolStream(serialize.query(reset), { syncToFs: false, throwOnError: false });
      }
    }
  }

  private async bound<T>(text: string, params: readonly unknown[], send: Send): Promise<Results<T>> {
    const statement = this.statements.get(text) ?? (await this.prepare(text, send));
    // Kept, or kept again, as the most recently used: the first one is the one to let go.
    this.statements.delete(text);
    this.statements.set(text, statement);
    const values = params.map((value, i) => {
      if (value === null || value === undefined) return null;
      const serializer = this.db.serializers[statement.types[i]!];
      return serializer ? serializer(value) : (value as { toString(): string }).toString();
    });
    // Bind, execute and sync in one call: PGlite runs a buffer's messages in turn, and after an error
    // Postgres skips to the sync, so the statement ends either way.
    const bind = serialize.bind({ statement: statement.name, values: values as (string | Uint8Array | null)[] });
    const out = await send(joined(bind, serialize.execute({}), serialize.sync()));
    return parse.parseResults([...statement.columns, ...out], this.db.parsers)[0] as Results<T>;
  }

  private async prepare(text: string, send: Send): Promise<Statement> {
    const name = `${this.prefix}${++this.made}`;
    const parts = [serialize.parse({ name, text }), serialize.describe({ type: 'S', name }), serialize.sync()];
    if (this.statements.size >= KEEP) {
      const [oldest, { name: closed }] = this.statements.entries().next().value!;
      this.statements.delete(oldest);
      parts.unshift(serialize.close({ type: 'S', name: closed }));
    }
    const described = await send(joined(...parts));
    return { name, types: parse.parseDescribeStatementResults(described), columns: described.filter((m) => m.name === 'rowDescription') };
  }
}

/** Protocol messages one after another, to be sent in one call. */
function joined(...parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}
