import type { Results } from '@electric-sql/pglite';

/** What a repository needs: statements with parameters, and DDL; the store's are prepared (prepared.ts). */
export interface Sql {
  query<T>(text: string, params?: unknown[], o?: PlanChoice): Promise<Results<T>>;
  exec(text: string): Promise<Results[]>;
}

export interface PlanChoice {
  /**
   * Planned for the values given at every run, never on a generic plan (prepared.ts): for a statement
   * whose best plan depends on them. A period's episodes are a week's few, read through their spans,
   * or twenty years' thousands, read by a scan that stops at the first ones it needs; a vector search
   * that had run five times for a year took 1.4 s for twenty years on the year's plan, 18 ms on its own.
   */
  planEachRun?: boolean;
  /**
   * Read through an index where Postgres would scan the table, and planned each run: for a count
   * that stops at a bound over rows that lie together in the table. A scan is costed as if what it
   * looks for were spread evenly, but a period's episodes were written in time order: counting 51 of
   * three years long ago read most of 100k episodes (90 ms) where their spans' index gives them at once.
   */
  byIndex?: boolean;
}

/**
 * Told what a write changed, so the store knows when to maintain itself: rows of the keyword indexes
 * (episodes' and facts'), and facts added, changed, moved between tiers or deleted.
 */
export interface WriteTracker {
  postings(rows: number): void;
  facts(count: number): void;
}

/** Builds a parameter list alongside SQL text so dynamic filters stay parameterised. */
export class Params {
  readonly values: unknown[] = [];
  add(value: unknown): string {
    this.values.push(value);
    return `$${this.values.length}`;
  }
}

/**
 * A vector as a real[] parameter (see binaryArray), which SQL casts on (`$n::real[]::halfvec(384)`):
 * in its text form the server parsed hundreds of numbers, ~0.6 ms of a vector search at 100k episodes.
 */
export function vectorParam(v: ArrayLike<number>): Uint8Array {
  return float4Array(v);
}

/**
 * `expr` (an expression of parameters only) evaluated once per statement. A prepared statement may run
 * on a generic plan (prepared.ts), where a cast of a parameter is not folded into a constant but made
 * again for every row it meets. As a sub-select it is an init plan, evaluated once: the exact search
 * over a person's facts, which compares every vector, took 5.1 instead of 6.1 ms at 235 facts.
 */
export function evaluatedOnce(expr: string): string {
  return `(SELECT ${expr})`;
}

/**
 * Postgres's binary form of a one-dimensional array: PGlite sends a Uint8Array parameter as binary, so
 * the server reads each element as it is (4 bytes for an int, a length and the bytes for a text)
 * instead of parsing and unquoting text (for real[] about 20× faster, and the numbers are exactly those
 * given). Only for a parameter the SQL casts to the element type's array (`$n::int[]`, `$n::text[]`):
 * that cast is what tells the server its type. `size` is each element's byte length (null for a null
 * element), `put` writes it at `at`.
 */
function binaryArray<T>(
  values: readonly T[],
  elementOid: number,
  size: (x: T) => number | null,
  put: (b: Buffer, at: number, x: T) => void,
): Uint8Array {
  const sizes = values.map(size);
  // Its own memory (never a slice of Node's shared pool): PGlite sends the whole underlying buffer.
  const b = Buffer.alloc(20 + sizes.reduce<number>((n, s) => n + 4 + (s ?? 0), 0));
  // Header: dimensions, has-nulls flag, element type, then the one dimension's length and lower bound.
  b.writeInt32BE(1, 0);
  b.writeInt32BE(sizes.includes(null) ? 1 : 0, 4);
  b.writeInt32BE(elementOid, 8);
  b.writeInt32BE(values.length, 12);
  b.writeInt32BE(1, 16);
  let at = 20;
  values.forEach((x, i) => {
    const n = sizes[i]!;
    b.writeInt32BE(n ?? -1, at);
    at += 4;
    if (n === null) return;
    put(b, at, x);
    at += n;
  });
  return b;
}

/** Whether this machine keeps a number's low byte first (typed arrays use its order). */
export const LITTLE_ENDIAN = new Uint8Array(new Uint32Array([1]).buffer)[0] === 1;

/**
 * An array of 4-byte elements in binaryArray's form, written as native words and swapped to network
 * order at once: the keyword index sends millions of numbers a big import (element by element, the
 * encoding took 3 % of it).
 */
function fourByteArray(values: ArrayLike<number>, elementOid: number, float: boolean): Uint8Array {
  const n = values.length;
  const b = Buffer.alloc(20 + 8 * n);
  for (const [i, word] of [1, 0, elementOid, n, 1].entries()) b.writeInt32BE(word, 4 * i);
  // Each element: its length (4), then its value.
  const words = new Int32Array(b.buffer, b.byteOffset + 20, 2 * n);
  const floats = new Float32Array(b.buffer, b.byteOffset + 20, 2 * n);
  for (let i = 0; i < n; i++) {
    const x = values[i]!;
    words[2 * i] = 4;
    if (float) floats[2 * i + 1] = x;
    else if (x === (x | 0)) words[2 * i + 1] = x;
    else throw new RangeError(`${x} is not a 32-bit integer`);
  }
  if (LITTLE_ENDIAN) b.subarray(20).swap32();
  return b;
}

/** An int[] parameter (see binaryArray); the values must be 32-bit integers. */
export function int4Array(values: ArrayLike<number>): Uint8Array {
  return fourByteArray(values, 23, false);
}

/** A real[] parameter (see binaryArray): each value rounded to a float4, as the server would. */
export function float4Array(values: ArrayLike<number>): Uint8Array {
  return fourByteArray(values, 700, true);
}

/** A float8[] parameter (see binaryArray): the very numbers given, no decimal round trip. */
export function float8Array(values: readonly number[]): Uint8Array {
  return binaryArray(
    values,
    701,
    () => 8,
    (b, at, x) => b.writeDoubleBE(x, at),
  );
}

/** An int8[] parameter (see binaryArray). */
export function int8Array(values: readonly bigint[]): Uint8Array {
  return binaryArray(
    values,
    20,
    () => 8,
    (b, at, x) => b.writeBigInt64BE(x, at),
  );
}

/** A text[] parameter (see binaryArray), nulls allowed; also for a `::jsonb` cast of its elements. */
export function textArray(values: readonly (string | null)[]): Uint8Array {
  return binaryArray(
    values,
    25,
    (x) => (x === null ? null : Buffer.byteLength(x, 'utf8')),
    (b, at, x) => b.write(x!, at, 'utf8'),
  );
}

/** A uuid[] parameter (see binaryArray): 16 bytes an id instead of 36 characters to parse. */
export function uuidArray(values: readonly string[]): Uint8Array {
  return binaryArray(
    values,
    2950,
    () => 16,
    (b, at, x) => b.write(x.replaceAll('-', ''), at, 'hex'),
  );
}

/** Microseconds from the Unix epoch to Postgres's, 2000-01-01 UTC. */
const PG_EPOCH_MICROS = 946_684_800_000_000n;

/** A timestamptz[] parameter (see binaryArray): microseconds since 2000 instead of an ISO string to parse. */
export function timestamptzArray(values: readonly Date[]): Uint8Array {
  return binaryArray(
    values,
    1184,
    () => 8,
    (b, at, x) => b.writeBigInt64BE(BigInt(x.getTime()) * 1000n - PG_EPOCH_MICROS, at),
  );
}

/**
 * Lists as one array parameter: `items` holds them one after the other, and list i is
 * `items[from[i]..to[i]]` (1-based, inclusive), which SQL reads as the slice `($n::int[])[a:b]`.
 */
export function flattened<T>(lists: readonly ArrayLike<T>[]): { items: T[]; from: number[]; to: number[] } {
  const items: T[] = [];
  const from: number[] = [];
  const to: number[] = [];
  for (const list of lists) {
    from.push(items.length + 1);
    for (let i = 0; i < list.length; i++) items.push(list[i]!);
    to.push(items.length);
  }
  return { items, from, to };
}

export function chunks<T>(items: readonly T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

/**
 * Runs a write without Postgres's foreign-key checks: each is a lookup of the referenced row per row
 * written (about 40 µs in PGlite, most of what storing a message costs). Only for writes whose
 * references the caller has made sure of for all their rows at once — rows selected from the table
 * they reference, or a reference checked in the same transaction just before (`requireConversation`).
 * Must run in a transaction: the setting is local to it, and a failing write rolls it back with it.
 */
export async function withReferencesChecked<T>(q: Sql, write: () => Promise<T>): Promise<T> {
  // The replica role skips the checks' triggers (as a restore of a dump does) and every other
  // ordinary trigger: the tables written here have no insert or update trigger, and one that gets
  // one must no longer be written through here.
  await q.query(`SET LOCAL session_replication_role = replica`);
  const out = await write();
  await q.query(`SET LOCAL session_replication_role = origin`);
  return out;
}

/**
 * Throws unless the conversation is one of the owner's: the check the foreign key would have made for
 * every message or episode written into it, made once. Returns the number its next message gets.
 */
export async function requireConversation(q: Sql, ownerId: string, conversationId: string): Promise<{ nextSeq: number }> {
  const r = await q.query<{ next_seq: number }>(`SELECT next_seq FROM conversations WHERE owner_id = $1 AND id = $2`, [
    ownerId,
    conversationId,
  ]);
  if (r.rows.length === 0) throw new Error(`conversation ${conversationId} is not stored for owner ${ownerId}`);
  return { nextSeq: r.rows[0]!.next_seq };
}
