import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { PGlite } from '@electric-sql/pglite';
import { PreparedStatements } from '../../core/store/prepared.js';
import { int4Array } from '../../core/store/sql.js';

describe('prepared statements', () => {
  let db: PGlite;
  beforeEach(async () => {
    db = await PGlite.create();
    await db.exec(`CREATE TABLE notes (id int PRIMARY KEY, body text, tags text[], at timestamptz, meta jsonb)`);
  });
  afterEach(() => db.close());

  const preparedNames = async () =>
    (await db.query<{ name: string }>(`SELECT name FROM pg_prepared_statements ORDER BY name`)).rows.map((r) => r.name);

  it('answers as a plain query does, for every kind of value, and parses each statement once', async () => {
    const sql = new PreparedStatements(db, 'r').outside();
    const at = new Date('2024-05-08T10:00:00Z');
    await db.query(`INSERT INTO notes VALUES (1, 'one', ARRAY['a','b'], $1, '{"k":1}'), (2, NULL, '{}', $1, NULL)`, [at]);
    const select = `SELECT id, body, tags, at, meta FROM notes WHERE id = ANY($1::int[]) AND (body IS DISTINCT FROM $2) ORDER BY id`;
    for (let i = 0; i < 8; i++) {
      // Past five runs Postgres may plan once for all values: the answers must not change.
      const r = await sql.query(select, [int4Array([1, 2]), i % 2 ? null : 'none']);
      expect(r.rows).toEqual((await db.query(select, [[1, 2], i % 2 ? null : 'none'])).rows);
      const both = [
        { id: 1, body: 'one', tags: ['a', 'b'], at, meta: { k: 1 } },
        { id: 2, body: null, tags: [], at, meta: null },
      ];
      expect(r.rows).toEqual(i % 2 ? both.slice(0, 1) : both);
    }
    const insert = await sql.query(`INSERT INTO notes (id, body, meta) VALUES ($1, $2, $3)`, [3, 'three', { deep: [1, 2] }]);
    expect(insert.affectedRows).toBe(1);
    expect((await sql.query<{ meta: unknown }>(`SELECT meta FROM notes WHERE id = $1`, [3])).rows).toEqual([{ meta: { deep: [1, 2] } }]);
    expect(await preparedNames()).toEqual(['r1', 'r2', 'r3']);
  });

  it('keeps a bounded number of statements, and runs one again after letting it go', async () => {
    const sql = new PreparedStatements(db, 'r').outside();
    const nth = (n: number) => `SELECT $1::int + ${n} AS v`;
    for (let n = 0; n < 200; n++) expect((await sql.query<{ v: number }>(nth(n), [1])).rows[0]!.v).toBe(n + 1);
    const kept = await preparedNames();
    expect(kept.length).toBeLessThan(200);
    expect(kept).not.toContain('r1');
    expect((await sql.query<{ v: number }>(nth(0), [5])).rows[0]!.v).toBe(5);
  });

  it('plans a statement for the values of each run when asked to, and leaves the session as it found it', async () => {
    const sql = new PreparedStatements(db, 'r').outside();
    const writes = new PreparedStatements(db, 'w');
    const byId = `SELECT body FROM notes WHERE id = $1`;
    const eachRun = `SELECT body FROM notes WHERE id = $1 + 0`;
    for (let i = 0; i < 8; i++) {
      await sql.query(byId, [i]);
      await sql.query(eachRun, [i], { planEachRun: true });
    }
    await db.transaction((tx) => writes.inside(tx).query(eachRun, [1], { planEachRun: true }));
    const plans = await db.query(
      `SELECT statement, generic_plans::int AS generic, custom_plans::int AS custom FROM pg_prepared_statements ORDER BY name`,
    );
    // Past its fifth run the other one is planned once for every value.
    expect(plans.rows).toEqual([
      { statement: byId, generic: 3, custom: 5 },
      { statement: eachRun, generic: 0, custom: 8 },
      { statement: eachRun, generic: 0, custom: 1 },
    ]);
    const mode = async () => (await db.query<{ plan_cache_mode: string }>(`SHOW plan_cache_mode`)).rows[0]!.plan_cache_mode;
    expect(await mode()).toBe('auto');
    // Failed, alone or in a transaction that rolls back.
    const fails = `SELECT 1 / $1::int AS v`;
    await expect(sql.query(fails, [0], { planEachRun: true })).rejects.toThrow(/division by zero/);
    expect(await mode()).toBe('auto');
    await expect(db.transaction((tx) => writes.inside(tx).query(fails, [0], { planEachRun: true }))).rejects.toThrow(/division by zero/);
    expect(await mode()).toBe('auto');
    expect((await sql.query<{ v: number }>(fails, [1], { planEachRun: true })).rows).toEqual([{ v: 1 }]);
  });

  it('reads through an index when asked to, where Postgres would scan the table, and leaves the session as it found it', async () => {
    const sql = new PreparedStatements(db, 'r').outside();
    await db.exec(`INSERT INTO notes (id, body) SELECT g, 'n' || g FROM generate_series(1, 2000) g; ANALYZE notes`);
    const plan = async (o: { byIndex?: boolean }) =>
      (await sql.query<{ 'QUERY PLAN': string }>(`EXPLAIN SELECT body FROM notes WHERE id > $1`, [0], o)).rows
        .map((r) => r['QUERY PLAN'])
        .join('\n');
    expect(await plan({})).toMatch(/Seq Scan on notes/);
    expect(await plan({ byIndex: true })).toMatch(/Index Scan using notes_pkey|Bitmap Index Scan on notes_pkey/);
    expect(await plan({})).toMatch(/Seq Scan on notes/);
    expect((await db.query(`SHOW enable_seqscan`)).rows).toEqual([{ enable_seqscan: 'on' }]);
  });

  it('reports a bad statement or a failed one and goes on serving', async () => {
    const sql = new PreparedStatements(db, 'r').outside();
    await expect(sql.query(`SELEC 1`, [])).rejects.toThrow(/syntax error/);
    const insert = `INSERT INTO notes (id, body) VALUES ($1, $2)`;
    await sql.query(insert, [1, 'one']);
    await expect(sql.query(insert, [1, 'again'])).rejects.toMatchObject({ code: '23505' });
    expect((await sql.query(`SELECT body FROM notes`, [])).rows).toEqual([{ body: 'one' }]);
  });

  it('makes a query outside a transaction wait for the transaction to end', async () => {
    const reads = new PreparedStatements(db, 'r').outside();
    const writes = new PreparedStatements(db, 'w');
    const count = `SELECT count(*)::int AS n FROM notes`;
    let seen: Promise<unknown> | null = null;
    await expect(
      db.transaction(async (tx) => {
        await writes.inside(tx).query(`INSERT INTO notes (id) VALUES ($1)`, [1]);
        seen = reads.query<{ n: number }>(count, []).then((r) => r.rows[0]!.n);
        // Had the read run now, inside the transaction, it would have counted the row rolled back below.
        await new Promise((resolve) => setTimeout(resolve, 20));
        throw new Error('changed my mind');
      }),
    ).rejects.toThrow('changed my mind');
    expect(await seen).toBe(0);
    // The statement made inside the rolled-back transaction still serves the next one.
    await db.transaction((tx) => writes.inside(tx).query(`INSERT INTO notes (id) VALUES ($1)`, [2]));
    expect((await reads.query<{ id: number }>(`SELECT id FROM notes`, [])).rows).toEqual([{ id: 2 }]);
  });
});
