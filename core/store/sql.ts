import type { Transaction } from '@electric-sql/pglite';

/** What a repository needs: the database itself or an open transaction. */
export type Sql = Pick<Transaction, 'query' | 'exec'>;

/** Called with the number of index rows a write touched, so the store knows when to maintain itself. */
export type WriteTracker = (rows: number) => void;

/** Builds a parameter list alongside SQL text so dynamic filters stay parameterised. */
export class Params {
  readonly values: unknown[] = [];
  add(value: unknown): string {
    this.values.push(value);
    return `$${this.values.length}`;
  }
}

/** pgvector's text form. */
export function vectorLiteral(v: ArrayLike<number>): string {
  return `[${Array.from(v).join(',')}]`;
}

/**
 * Postgres's binary form of a one-dimensional array without nulls: PGlite sends a Uint8Array parameter
 * as binary, so the server reads each element as 4 bytes instead of parsing its text (for real[] that
 * is about 20× faster, and the numbers are exactly those given). Only for a parameter the SQL casts to
 * the element type's array (`$n::int[]`, `$n::real[]`): that cast is what tells the server its type.
 */
function binaryArray(values: readonly number[], elementOid: number, put: (d: DataView, at: number, x: number) => void): Uint8Array {
  const d = new DataView(new ArrayBuffer(20 + 8 * values.length));
  // Header: dimensions, has-nulls flag, element type, then the one dimension's length and lower bound.
  d.setInt32(0, 1);
  d.setInt32(4, 0);
  d.setInt32(8, elementOid);
  d.setInt32(12, values.length);
  d.setInt32(16, 1);
  values.forEach((x, i) => {
    d.setInt32(20 + 8 * i, 4);
    put(d, 24 + 8 * i, x);
  });
  return new Uint8Array(d.buffer);
}

/** An int[] parameter (see binaryArray); the values must be 32-bit integers. */
export function int4Array(values: readonly number[]): Uint8Array {
  return binaryArray(values, 23, (d, at, x) => d.setInt32(at, x));
}

/** A real[] parameter (see binaryArray): each value rounded to a float4, as the server would. */
export function float4Array(values: readonly number[]): Uint8Array {
  return binaryArray(values, 700, (d, at, x) => d.setFloat32(at, x));
}

export function chunks<T>(items: readonly T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}
