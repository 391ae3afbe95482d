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

export function chunks<T>(items: readonly T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}
