import fs from 'node:fs';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import zlib from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { PGlite, type PGliteOptions, type Transaction } from '@electric-sql/pglite';
import { vector } from '@electric-sql/pglite-pgvector';
import { Store } from '../../core/store/store.js';
import { defaultMigrationsDir, migrate } from '../../core/store/migrate.js';
import { writeRepos } from '../../core/store/repos.js';
import type { Sql, WriteTracker } from '../../core/store/sql.js';
import { EXACT_UP_TO } from '../../core/store/vectors.js';
import { openEngine } from '../../core/engine/open-engine.js';
import { fixture, tempDir, useRealStoreStartup } from '../helpers/engine.js';
import { bm25Params, CONSISTENT, conversation, doc, draft, newFact, NOW, owners, rolledBack, SPACE, useStore, vec } from './helpers.js';

/** A store on disk migrated only up to `version`, open in a bare PGlite (for an upgrade to start from). */
async function storeAtVersion(version: number): Promise<{ home: string; db: PGlite }> {
  const dir = tempDir();
  const migrations = path.join(dir, `migrations-v${version}`);
  fs.mkdirSync(migrations);
  for (const f of fs.readdirSync(defaultMigrationsDir).filter((f) => Number(f.slice(0, 3)) <= version))
    fs.copyFileSync(path.join(defaultMigrationsDir, f), path.join(migrations, f));
  const home = path.join(dir, 'home');
  fs.mkdirSync(home);
  const db = await PGlite.create({ dataDir: path.join(home, 'pg'), extensions: { vector } });
  await migrate(db, migrations);
  return { home, db };
}

/** Writes made outside the store's transactions, which nothing maintains. */
const untracked: WriteTracker = { postings: () => {}, facts: () => {} };

/** A transaction of a raw PGlite (an old store's, written as its version did) as repositories use one. */
function asSql(tx: Transaction): Sql {
  return { query: (text, params) => tx.query(text, params), exec: (text) => tx.exec(text) };
}

/**
 * Writes through today's repositories into a store of an older version, which lacks columns today's
 * writes fill and has ones they leave alone: those are bridged for the write only.
 */
async function writeAsBefore(tx: Transaction, write: (r: ReturnType<typeof writeRepos>) => Promise<void>): Promise<void> {
  // Versions before 10 wrote a text hash with every message; today's writes leave it to this default.
  await tx.exec(`ALTER TABLE messages ALTER COLUMN content_hash SET DEFAULT 'x'`);
  await tx.exec(`ALTER TABLE conversations ADD COLUMN next_seq integer NOT NULL DEFAULT 0`);
  await write(writeRepos(asSql(tx), untracked));
  await tx.exec(`ALTER TABLE conversations DROP COLUMN next_seq`);
}

describe('the store on disk', () => {
  it('refuses a second open of the same folder, naming the holder', async () => {
    const dir = tempDir();
    const first = await Store.open({ dir });
    try {
      await expect(Store.open({ dir })).rejects.toMatchObject({
        code: 'STORE_LOCKED',
        message: expect.stringContaining(`pid ${process.pid}`),
      });
    } finally {
      await first.close();
    }
    // Closing releases the lock.
    const again = await Store.open({ dir });
    await again.close();
    expect(fs.existsSync(path.join(dir, 'nemori.lock'))).toBe(false);
  });

  it('takes over a lock left by a process that died', async () => {
    const dir = tempDir();
    fs.writeFileSync(
      path.join(dir, 'nemori.lock'),
      JSON.stringify({ pid: 2 ** 22 + 12345, host: (await import('node:os')).hostname(), since: '2020-01-01' }),
    );
    const s = await Store.open({ dir });
    await s.close();
  });

  it('ends an import vacuumed, however small a share of the store it was', async () => {
    // An import marks the messages it built, which leaves their old versions behind (and their entries
    // in the index of pending messages, which every loadContext reads); the store's own vacuum waits
    // for a share of its whole index to be written.
    const home = tempDir();
    const e = await openEngine({ home, embedder: null });
    try {
      for (const [at, chats] of [10, 1].entries()) {
        const conversations = Array.from({ length: chats }, (_, c) => ({
          id: `c${at}-${c}`,
          messages: Array.from({ length: 150 }, (_, i) => ({
            id: `m${i}`,
            speaker: i % 2 ? 'Bob' : 'Alice',
            text: `message ${i} of chat ${at}-${c}, about the trip and the weather on day ${i % 7}`,
            timestamp: new Date(Date.UTC(2023, at, 1 + c, 9, i)).toISOString(),
          })),
        }));
        const file = path.join(home, `chats-${at}.json`);
        fs.writeFileSync(file, JSON.stringify({ conversations }));
        expect((await e.call('importFiles', { ownerId: 'me', paths: [file] })).messages).toBe(chats * 150);
      }
    } finally {
      await e.close();
    }
    const db = await PGlite.create({ dataDir: path.join(home, 'db', 'pg'), extensions: { vector } });
    try {
      // Vacuumed, every page of messages is known to hold only visible rows: an index-only scan reads
      // none of them.
      await db.exec('SET enable_seqscan = off; SET enable_bitmapscan = off');
      const r = await db.query<{ 'QUERY PLAN': [{ Plan: Record<string, unknown> }] }>(
        `EXPLAIN (ANALYZE, FORMAT JSON) SELECT count(*) FROM messages WHERE owner_id = 'me'`,
      );
      const scan = (r.rows[0]!['QUERY PLAN'][0].Plan['Plans'] as Record<string, unknown>[])[0]!;
      expect(scan).toMatchObject({ 'Node Type': 'Index Only Scan', 'Actual Rows': 1650, 'Heap Fetches': 0 });
    } finally {
      await db.close();
    }
  });

  it('keeps the planner’s count of facts current as they come one by one, and catches up at open', async () => {
    // Facts never write enough to reach the episode index's maintenance; with a stale count the planner
    // believed a person with 10,000 facts had one and compared every fact vector exactly.
    const home = tempDir();
    const plannerFacts = async () => {
      const db = await PGlite.create({ dataDir: path.join(home, 'db', 'pg'), extensions: { vector } });
      try {
        return (await db.query<{ n: number }>(`SELECT reltuples::int AS n FROM pg_class WHERE relname = 'semantic_nodes'`)).rows[0]!.n;
      } finally {
        await db.close();
      }
    };
    const e = await openEngine({ home, embedder: null });
    try {
      for (let i = 0; i < 120; i++) await e.call('upsertKnowledge', { ownerId: 'me', key: `thing:t${i}`, value: `thing number ${i}` });
    } finally {
      await e.close();
    }
    // Refreshed after 50 writes, then after 55 more (a tenth of the facts counted then).
    expect(await plannerFacts()).toBe(105);
    const db = await PGlite.create({ dataDir: path.join(home, 'db', 'pg'), extensions: { vector } });
    await db.exec(`UPDATE pg_class SET reltuples = 0 WHERE relname = 'semantic_nodes'`);
    await db.close();
    await (await Store.open({ dir: path.join(home, 'db') })).close();
    expect(await plannerFacts()).toBe(120);
  });

  it('analyzes its tables from samples of 3,000 rows: histograms of at most 11 bounds', async () => {
    // ANALYZE holds its sample whole (text, vectors, postings arrays) in PGlite's memory, which never
    // shrinks: the default 30,000 rows grew it by 56 MB in a 60 MB import.
    const home = tempDir();
    const e = await openEngine({ home, embedder: null });
    try {
      // 40 messages a minute apart: 40 distinct times, where 100 as the target would give 40 bounds.
      const messages = Array.from({ length: 40 }, (_, i) => ({
        id: `m${i}`,
        speaker: i % 2 ? 'Bob' : 'Alice',
        text: `message number ${i} about the trip`,
        timestamp: new Date(Date.UTC(2023, 4, 8, 9, i)).toISOString(),
      }));
      const file = path.join(home, 'chat.json');
      fs.writeFileSync(file, JSON.stringify({ conversations: [{ id: 'c', messages }] }));
      expect((await e.call('importFiles', { ownerId: 'me', paths: [file] })).messages).toBe(40);
      await e.context.store.maintain(true);
    } finally {
      await e.close();
    }
    const db = await PGlite.create({ dataDir: path.join(home, 'db', 'pg'), extensions: { vector } });
    try {
      const stats = await db.query<{ bounds: number }>(
        `SELECT array_length(histogram_bounds::text::timestamptz[], 1) AS bounds FROM pg_stats WHERE tablename = 'messages' AND attname = 'sent_at'`,
      );
      expect(stats.rows[0]?.bounds).toBe(11);
    } finally {
      await db.close();
    }
  });

  it('removes the store a restore killed after its swap set aside, once the restored store opens', async () => {
    const parent = tempDir();
    const dir = path.join(parent, 'db');
    await (await Store.open({ dir })).close();
    const aside = path.join(parent, 'db.before-restore-1700000000000');
    fs.mkdirSync(path.join(aside, 'pg'), { recursive: true });
    fs.writeFileSync(path.join(aside, 'pg', 'PG_VERSION'), '17');
    const s = await Store.open({ dir });
    await s.close();
    expect(fs.readdirSync(parent)).toEqual(['db']);
  });

  it('unpacks no file of a backup outside its folder', async () => {
    // A tar made by hand: one entry that climbs out of the folder, and the file a data folder has.
    const entry = (name: string, data: string) => {
      const h = Buffer.alloc(512);
      h.write(name, 0);
      h.write('0000600\0', 100);
      h.write(`${data.length.toString(8).padStart(11, '0')}\0`, 124);
      h.write('00000000000\0', 136);
      h.write('0', 156);
      h.write('ustar\x0000', 257);
      h.write('        ', 148);
      h.write(
        `${h
          .reduce((n, b) => n + b, 0)
          .toString(8)
          .padStart(6, '0')}\0 `,
        148,
      );
      const body = Buffer.alloc(Math.ceil(data.length / 512) * 512);
      body.write(data);
      return [h, body];
    };
    const parent = tempDir();
    const file = path.join(parent, 'crafted.tar.gz');
    fs.writeFileSync(
      file,
      zlib.gzipSync(Buffer.concat([...entry('/PG_VERSION', '17'), ...entry('/../../escaped', 'x'), Buffer.alloc(1024)])),
    );
    const dir = path.join(parent, 'restored');
    await expect(Store.unpackBackup(dir, file)).rejects.toThrow(/crafted\.tar\.gz is not a Nemori backup \(it is not a database archive\)/);
    expect(fs.readdirSync(parent)).toEqual(['crafted.tar.gz']);
  });

  it('writes a backup that a new store opens from, as the store was when it began, and no file when it fails or was killed', async () => {
    const dir = tempDir();
    const s = await Store.open({ dir });
    const add = (id: string) =>
      s.transaction((r) =>
        r.conversations
          .upsert('me', conversation(id, ['hello']), NOW)
          .then(({ id: c }) => r.conversations.addMessages('me', c, conversation(id, ['hello']))),
      );
    const file = path.join(dir, 'nemori-backup-now.tar.gz');
    // What a backup killed part way left beside its name.
    const left = path.join(dir, 'nemori-backup-earlier.tar.gz.partial-99999');
    fs.writeFileSync(left, 'half a backup');
    try {
      await add('before');
      // A write asked for while the backup is made waits for it.
      await Promise.all([s.backup(file), add('during')]);
      expect(fs.existsSync(left)).toBe(false);
      expect(await s.read.conversations.withPendingMessages('me')).toHaveLength(2);
      await expect(s.backup(path.join(dir, 'no such folder', 'backup.tar.gz'))).rejects.toThrow(/ENOENT/);
      expect(fs.readdirSync(dir).filter((n) => n.includes('partial'))).toEqual([]);
    } finally {
      await s.close();
    }
    const restored = tempDir();
    await Store.unpackBackup(restored, file);
    const r = await Store.open({ dir: restored });
    try {
      expect(await r.read.conversations.withPendingMessages('me')).toHaveLength(1);
    } finally {
      await r.close();
    }
  });
});

/** Stores made by initdb and every migration, as on a person's machine, and older stores upgraded. */
describe('a new store, and an older one upgraded', () => {
  useRealStoreStartup();

  it('keeps everything across close and reopen, with migrations applied once', async () => {
    const home = tempDir();
    const a = await openEngine({ home, embedder: null });
    await a.call('importFiles', { ownerId: 'me', paths: [fixture('import', 'two-days.json')] });
    const stats = await a.call('stats', {});
    await a.close();
    const b = await openEngine({ home, embedder: null });
    try {
      expect(await b.call('stats', {})).toEqual(stats);
      const health = await b.call('health', {});
      const migrations = fs
        .readdirSync(path.join(import.meta.dirname, '..', '..', 'core', 'store', 'migrations'))
        .filter((f) => f.endsWith('.sql'));
      expect(health.database).toMatchObject({ status: 'ok', schemaVersion: migrations.length });
      expect(health.database.sizeBytes).toBeGreaterThan(0);
      // The write-ahead log is reported, and within its cap.
      expect(health.database.walBytes).toBeGreaterThan(0);
      expect(health.database.walBytes).toBeLessThanOrEqual(health.database.sizeBytes!);
      expect(health.database.walBytes).toBeLessThanOrEqual(64 * 1024 * 1024);
      expect((await b.call('search', { ownerId: 'me', query: 'Gornergrat boots', mode: 'bm25' })).results).toHaveLength(1);
    } finally {
      await b.close();
    }
  });

  it('keeps the write-ahead log bounded through a large import, from the first open of a new folder', async () => {
    const dir = tempDir();
    const s = await Store.open({ dir });
    let peak = 0;
    try {
      // 100 MB of text that does not compress: past the cap, so the WAL must be recycled as it goes
      // (Postgres's defaults would keep all of it).
      for (let batch = 0; batch < 10; batch++) {
        const texts = Array.from({ length: 10 }, () => randomBytes(768 * 1024).toString('base64'));
        await s.transaction((r) =>
          r.conversations
            .upsert('me', conversation(`c${batch}`, texts), NOW)
            .then(({ id }) => r.conversations.addMessages('me', id, conversation(`c${batch}`, texts))),
        );
        await s.maintain();
        peak = Math.max(peak, await s.walBytes());
      }
    } finally {
      await s.close();
    }
    expect(peak).toBeGreaterThan(0);
    expect(peak).toBeLessThanOrEqual(80 * 1024 * 1024);
    const walDir = path.join(dir, 'pg', 'pg_wal');
    const segments = fs.readdirSync(walDir, { withFileTypes: true }).filter((e) => e.isFile());
    const onDisk = segments.reduce((n, e) => n + fs.statSync(path.join(walDir, e.name)).size, 0);
    expect(onDisk).toBeLessThanOrEqual(48 * 1024 * 1024);
  });

  it("keeps the database inside PGlite's first 128 MB of memory, in a new folder and an old one", async () => {
    // The WebAssembly memory never shrinks: the folder's own 128 MB of shared buffers grew it to 189 MB
    // at the first query, resident for as long as the app runs.
    const home = tempDir();
    for (const open of ['new', 'reopened']) {
      const e = await openEngine({ home, embedder: null });
      try {
        await e.call('importFiles', { ownerId: 'me', paths: [fixture('import', 'two-days.json')] });
        await e.call('search', { ownerId: 'me', query: 'train tickets', limit: 10 });
        expect({ open, bytes: e.context.store.databaseMemoryBytes() }).toEqual({ open, bytes: 128 * 1024 * 1024 });
      } finally {
        await e.close();
      }
    }
  });

  it('upgrades an older store: each indexed document gets its postings, and removing it still removes them', async () => {
    // A store as version 5 left it: postings with their by-episode index, documents without their postings.
    const { home, db } = await storeAtVersion(5);
    const ids = await db.transaction(async (tx) => {
      const r = writeRepos(asSql(tx), untracked);
      const ids = [await r.episodes.insert('me', null, draft('Gornergrat'), NOW), await r.episodes.insert('me', null, draft('Boots'), NOW)];
      const postings: [string, string, number][] = [
        ['snow', ids[0]!, 0.5],
        ['train', ids[0]!, 0.25],
        ['snow', ids[1]!, 0.75],
      ];
      for (const [term, id, impact] of postings)
        await tx.query(`INSERT INTO bm25_postings (owner_id, term, episode_id, impact) VALUES ('me', $1, $2, $3)`, [term, id, impact]);
      for (const id of ids)
        await tx.query(
          `INSERT INTO bm25_docs (episode_id, owner_id, len_title, len_summary, len_entities, len_topics, len_content) VALUES ($1, 'me', 0, 0, 0, 0, 2)`,
          [id],
        );
      await tx.query(`INSERT INTO bm25_terms (owner_id, term, df) VALUES ('me', 'snow', 2), ('me', 'train', 1)`);
      await tx.query(`INSERT INTO bm25_stats VALUES ('me', 2, 0, 0, 0, 0, 4)`);
      return ids;
    });
    await db.close();

    const s = await Store.open({ dir: home });
    try {
      const search = (term: string) =>
        s.read.bm25.search('me', [term], { limit: 10, filters: {}, params: bm25Params }).then((r) => r.hits.map((h) => h.episodeId));
      expect(await s.read.bm25.verify('me')).toEqual(CONSISTENT);
      expect(await search('snow')).toEqual([ids[1], ids[0]]);
      await s.transaction((r) => r.bm25.remove('me', [ids[0]!]));
      expect(await search('train')).toEqual([]);
      expect(await search('snow')).toEqual([ids[1]]);
      expect(await s.read.bm25.verify('me')).toMatchObject({
        dfMismatches: 0,
        postingMismatches: 0,
        docsWithoutEpisode: 0,
        statsMismatch: false,
      });
    } finally {
      await s.close();
    }
  });

  it('compacts the tables a migration names once it ran: the dead copies of an in-place rewrite are given back', async () => {
    const sizes: number[] = [];
    for (const directive of ['', '-- compact: t\n']) {
      const migrations = path.join(tempDir(), 'migrations');
      fs.mkdirSync(migrations);
      fs.writeFileSync(
        path.join(migrations, '001_t.sql'),
        `CREATE TABLE t (id int PRIMARY KEY, v text);\nINSERT INTO t SELECT g, repeat('x', 100) FROM generate_series(1, 20000) g;`,
      );
      fs.writeFileSync(path.join(migrations, '002_rewrite.sql'), `${directive}UPDATE t SET v = repeat('y', 100);`);
      const db = await PGlite.create();
      await migrate(db, migrations);
      sizes.push((await db.query<{ n: number }>(`SELECT pg_total_relation_size('t')::float8 AS n`)).rows[0]!.n);
      await db.close();
    }
    expect(sizes[1]).toBeLessThan(sizes[0]! * 0.7);
  });

  it('keeps planner statistics only for the columns queries select by: ANALYZE skips text, JSON and postings arrays', async () => {
    const db = await PGlite.create({ extensions: { vector } });
    await migrate(db);
    await db.exec(`
      INSERT INTO conversations (id, owner_id, source, external_id, created_at, updated_at)
        VALUES ('00000000-0000-4000-8000-000000000001', 'o', 'api', 'c', now(), now());
      INSERT INTO messages (id, owner_id, conversation_id, dedupe_key, seq, speaker, role, content, sent_at)
        SELECT gen_random_uuid(), 'o', '00000000-0000-4000-8000-000000000001', g::text, g, 'Ann', 'user', repeat('words ', g % 50), now()
        FROM generate_series(1, 500) g;
      ANALYZE messages;`);
    const r = await db.query<{ attname: string }>(`SELECT attname FROM pg_stats WHERE tablename = 'messages' ORDER BY attname`);
    const analyzed = r.rows.map((x) => x.attname);
    expect(analyzed).toEqual(expect.arrayContaining(['owner_id', 'conversation_id', 'sent_at', 'processed', 'episode_id']));
    for (const column of ['content', 'attachments', 'metadata']) expect(analyzed).not.toContain(column);
    await db.close();
  });

  it('upgrades a store of version 7 to packed postings that search exactly as its postings did', async () => {
    const { home, db } = await storeAtVersion(7);
    // Two owners indexed as version 7 did: a posting row per term and episode, each document with its own copy.
    const words = ['snow', 'train', 'tea', 'boots', 'lake', 'rain', 'map', 'bread'];
    let seed = 7;
    const next = () => (seed = (seed * 48271) % 2147483647) / 2147483647;
    const owned: Record<string, string[]> = {};
    for (const owner of ['me', 'you']) {
      await db.transaction(async (tx) => {
        const r = writeRepos(asSql(tx), untracked);
        const df = new Map<string, number>();
        let length = 0;
        owned[owner] = [];
        for (let i = 0; i < 40; i++) {
          const id = await r.episodes.insert(owner, null, draft(`Day ${i}`), NOW);
          owned[owner]!.push(id);
          const terms = words.filter(() => next() < 0.5);
          const impacts = terms.map(() => Math.fround(next()));
          length += terms.length;
          for (const [j, term] of terms.entries()) {
            df.set(term, (df.get(term) ?? 0) + 1);
            await tx.query(`INSERT INTO bm25_postings (owner_id, term, episode_id, impact) VALUES ($1, $2, $3, $4)`, [
              owner,
              term,
              id,
              impacts[j],
            ]);
          }
          await tx.query(
            `INSERT INTO bm25_docs (episode_id, owner_id, len_title, len_summary, len_entities, len_topics, len_content, terms, impacts)
             VALUES ($1, $2, 0, 0, 0, 0, $3, $4, $5)`,
            [id, owner, terms.length, terms, impacts],
          );
        }
        for (const [term, n] of df) await tx.query(`INSERT INTO bm25_terms (owner_id, term, df) VALUES ($1, $2, $3)`, [owner, term, n]);
        await tx.query(`INSERT INTO bm25_stats VALUES ($1, 40, 0, 0, 0, 0, $2)`, [owner, length]);
      });
    }
    // What version 7's search returned: each term's `per` strongest postings, idf × impact summed.
    const queries = [['snow'], ['snow', 'tea', 'snow'], ['lake', 'rain', 'map', 'bread', 'nothing']];
    const oldSearch = async (owner: string, terms: string[], per: number) => {
      const r = await db.query<{ episode_id: string; score: number }>(
        `SELECT s.episode_id, sum(s.w * s.impact) AS score
         FROM (SELECT qt.w, x.episode_id, x.impact
               FROM (SELECT t.term, count(*) * ln(1 + (40 - t.df + 0.5) / (t.df + 0.5)) * 2.2 AS w
                     FROM unnest($2::text[]) AS q(term) JOIN bm25_terms t ON t.owner_id = $1 AND t.term = q.term GROUP BY t.term, t.df) qt
               CROSS JOIN LATERAL (SELECT episode_id, impact FROM bm25_postings WHERE owner_id = $1 AND term = qt.term
                                   ORDER BY impact DESC LIMIT $3) x) s
         GROUP BY s.episode_id ORDER BY score DESC, s.episode_id LIMIT 100`,
        [owner, terms, per],
      );
      return r.rows.map((x) => ({ episodeId: x.episode_id, score: x.score }));
    };
    // Reading part of the postings ranks as version 7 did for one term; with several, the best
    // documents are scored by every term they hold since (test/store/bm25-blocks.test.ts).
    const pers = (q: string[]) => (new Set(q).size === 1 ? [3, 1000] : [1000]);
    const expected: unknown[] = [];
    for (const owner of ['me', 'you']) for (const q of queries) for (const per of pers(q)) expected.push(await oldSearch(owner, q, per));
    await db.close();

    const s = await Store.open({ dir: home });
    try {
      const got: unknown[] = [];
      for (const owner of ['me', 'you'])
        for (const q of queries)
          for (const per of pers(q)) {
            const { hits } = await s.read.bm25.search(owner, q, {
              limit: 100,
              filters: {},
              params: { ...bm25Params, postingsPerTerm: per },
            });
            got.push(hits.map((h) => ({ episodeId: h.episodeId, score: expect.closeTo(h.score, 12) as unknown })));
          }
      expect(got).toEqual(expected);
      for (const owner of ['me', 'you']) expect(await s.read.bm25.verify(owner)).toEqual(CONSISTENT);
      // Removing and parking go through the packed blocks from here on.
      await s.transaction(async (r) => {
        await r.bm25.park('me', owned.me!.slice(0, 5), NOW);
        await r.bm25.remove('me', owned.me!.slice(5, 10));
        await r.bm25.unpark('me', owned.me!.slice(0, 5));
      });
      expect(await s.read.bm25.verify('me')).toMatchObject({ dfMismatches: 0, postingMismatches: 0, statsMismatch: false });
      expect(await s.read.bm25.verify('you')).toEqual(CONSISTENT);
    } finally {
      await s.close();
    }
  });

  it('upgrades an older store: the parts of a conversation numbered from 0 each are numbered on, in time order', async () => {
    const { home, db } = await storeAtVersion(6);
    await db.transaction(async (tx) => {
      await writeAsBefore(tx, async (r) => {
        const { id } = await r.conversations.upsert('me', conversation('long', []), NOW);
        await r.conversations.addMessages('me', id, conversation('long', ['a', 'b', 'c', 'd', 'e']));
      });
      // As version 6 stored a chat of two parts: the second part numbered from 0 again.
      await tx.query(`UPDATE messages SET seq = seq - 3 WHERE seq >= 3`);
    });
    await db.close();

    const s = await Store.open({ dir: home });
    try {
      const c = (await s.read.conversations.byExternalId('me', 'long'))[0]!;
      const messages = await s.read.conversations.pendingMessages('me', c.id);
      expect(messages.map((m) => [m.text, m.seq])).toEqual([
        ['a', 0],
        ['b', 1],
        ['c', 2],
        ['d', 3],
        ['e', 4],
      ]);
    } finally {
      await s.close();
    }
  });

  it('upgrades a store of version 8: its vectors are kept at half precision, searched through an index of sign bits', async () => {
    const { home, db } = await storeAtVersion(8);
    const ids = await db.transaction(async (tx) => {
      const r = writeRepos(asSql(tx), untracked);
      const north = await r.episodes.insert('me', null, draft('North'), NOW);
      const east = await r.episodes.insert('me', null, draft('East'), NOW);
      // As version 8 stored them: full-precision vectors, and an index that copies each of them whole.
      await tx.exec(`CREATE INDEX episode_hnsw_0123456789ab ON episode_embeddings
        USING hnsw ((embedding::vector(3)) vector_cosine_ops) WHERE model_id = 'test-model'`);
      await tx.query(
        `INSERT INTO episode_embeddings (episode_id, owner_id, model_id, embedding)
         VALUES ($1, 'me', 'test-model', '[0,1,0]'), ($2, 'me', 'test-model', '[0.8,0.6,0]')`,
        [north, east],
      );
      return { north, east };
    });
    await db.close();

    const s = await Store.open({ dir: home });
    try {
      await s.transaction((r) => r.vectors.ensureIndex(SPACE));
      // Counted as one of many, so the search goes through the index.
      const hits = await s.read.vectors.search('me', SPACE, vec(0.6, 0.8, 0), { limit: 2, filters: {}, vectors: EXACT_UP_TO + 1 });
      expect(hits).toEqual([
        { episodeId: ids.east, similarity: expect.closeTo(0.96, 3) },
        { episodeId: ids.north, similarity: expect.closeTo(0.8, 3) },
      ]);
    } finally {
      await s.close();
    }
    const after = await PGlite.create({ dataDir: path.join(home, 'pg'), extensions: { vector } });
    try {
      const indexes = await after.query<{ indexdef: string }>(`SELECT indexdef FROM pg_indexes WHERE indexname LIKE 'episode_hnsw_%'`);
      expect(indexes.rows.map((r) => r.indexdef)).toEqual([expect.stringContaining('bit_hamming_ops')]);
      const column = await after.query<{ type: string }>(
        `SELECT format_type(atttypid, atttypmod) AS type FROM pg_attribute WHERE attrelid = 'episode_embeddings'::regclass AND attname = 'embedding'`,
      );
      expect(column.rows).toEqual([{ type: 'halfvec' }]);
    } finally {
      await after.close();
    }
  });

  it('upgrades a store of version 9: messages lose their unread text hash, keep their import keys, and are not imported twice', async () => {
    const { home, db } = await storeAtVersion(9);
    const chat = conversation('chat', ['one', 'two', 'two']);
    await db.transaction(async (tx) => {
      await writeAsBefore(tx, async (r) => {
        const { id } = await r.conversations.upsert('me', chat, NOW);
        await r.conversations.addMessages('me', id, chat);
      });
    });
    await db.close();

    const s = await Store.open({ dir: home });
    try {
      const again = await s.transaction(async (r) => {
        const { id } = await r.conversations.upsert('me', chat, NOW);
        return r.conversations.addMessages('me', id, chat);
      });
      expect(again).toBe(0);
      // The chat's next part is numbered after what the older version stored.
      const later = { ...chat, messages: [{ ...chat.messages[0]!, text: 'three', sentAt: new Date(NOW.getTime() + 3_600_000) }] };
      await s.transaction(async (r) => {
        const { id } = await r.conversations.upsert('me', later, NOW);
        expect(await r.conversations.addMessages('me', id, later)).toBe(1);
      });
    } finally {
      await s.close();
    }
    const after = await PGlite.create({ dataDir: path.join(home, 'pg'), extensions: { vector } });
    try {
      const columns = await after.query(
        `SELECT 1 FROM pg_attribute WHERE attrelid = 'messages'::regclass AND attname = 'content_hash' AND NOT attisdropped`,
      );
      expect(columns.rows).toEqual([]);
      expect((await after.query(`SELECT content, seq FROM messages ORDER BY seq, content`)).rows).toEqual([
        { content: 'one', seq: 0 },
        { content: 'two', seq: 1 },
        { content: 'two', seq: 2 },
        { content: 'three', seq: 3 },
      ]);
    } finally {
      await after.close();
    }
  });

  it('upgrades a store of version 21: the planner knows how episodes’ spans lie, so a period as long as the memory is read by a scan', async () => {
    const { home, db } = await storeAtVersion(21);
    await db.transaction(async (tx) => {
      const r = writeRepos(asSql(tx), untracked);
      for (let d = 0; d < 300; d++) {
        const at = new Date(NOW.getTime() - d * 86_400_000);
        await r.episodes.insert('me', null, draft(`Day ${d}`, { temporal: { start: at, end: at, utcOffsetMin: 0 } }), NOW);
      }
    });
    await db.close();

    await (await Store.open({ dir: home })).close();
    const after = await PGlite.create({ dataDir: path.join(home, 'pg'), extensions: { vector } });
    try {
      // Without statistics every period looked like a hundredth of the episodes: all of them were read through the index.
      const stats = await after.query(`SELECT 1 FROM pg_stats WHERE tablename = 'episodes_by_span'`);
      expect(stats.rows).toHaveLength(1);
      const plan = await after.query<{ 'QUERY PLAN': string }>(
        `EXPLAIN SELECT 1 FROM episodes e WHERE e.owner_id = 'me'
           AND tstzrange(least(e.start_at, e.end_at), greatest(e.start_at, e.end_at), '[]') && tstzrange($1::timestamptz, $2::timestamptz, '[)') LIMIT 10`,
        [new Date(NOW.getTime() - 400 * 86_400_000), new Date(NOW.getTime() + 86_400_000)],
      );
      expect(plan.rows.map((r) => r['QUERY PLAN']).join('\n')).toMatch(/Seq Scan on episodes/);
    } finally {
      await after.close();
    }
  });

  it('upgrades a store of version 22: recalled episodes keep how often and when they were last recalled, and count on from there', async () => {
    const { home, db } = await storeAtVersion(22);
    const ids: string[] = [];
    await db.transaction(async (tx) => {
      const r = writeRepos(asSql(tx), untracked);
      for (const title of ['Recalled twice', 'Never recalled']) ids.push(await r.episodes.insert('me', null, draft(title), NOW));
    });
    const lastWeek = new Date(NOW.getTime() - 7 * 86_400_000);
    await db.query(`UPDATE episodes SET recall_count = 2, last_accessed = $2 WHERE id = $1`, [ids[0], lastWeek]);
    await db.close();

    const s = await Store.open({ dir: home });
    try {
      const recalls = async () =>
        Object.fromEntries(
          (await s.read.episodes.getMany('me', ids)).map((e) => [e.title, [e.recallCount, e.lastAccessed?.toISOString() ?? null]]),
        );
      expect(await recalls()).toEqual({ 'Recalled twice': [2, lastWeek.toISOString()], 'Never recalled': [0, null] });
      // Only recalled episodes have a row of recalls.
      expect(await s.read.memoryTables.counts('me')).toMatchObject({ episodes: 2, episode_recalls: 1 });
      await s.transaction((r) => r.episodes.recordAccess('me', [...ids, ids[0]!], NOW));
      expect(await recalls()).toEqual({ 'Recalled twice': [3, NOW.toISOString()], 'Never recalled': [1, NOW.toISOString()] });
      // Another owner's call names no episode of theirs: nothing is recorded.
      await s.transaction((r) => r.episodes.recordAccess('you', ids, NOW));
      expect(await s.read.memoryTables.counts('you')).toMatchObject({ episode_recalls: 0 });
      expect(await recalls()).toEqual({ 'Recalled twice': [3, NOW.toISOString()], 'Never recalled': [1, NOW.toISOString()] });
      // Removing an episode removes its recalls.
      await s.transaction((r) => r.episodes.delete('me', ids[0]!));
      expect(await s.read.memoryTables.counts('me')).toMatchObject({ episodes: 1, episode_recalls: 1 });
    } finally {
      await s.close();
    }
  });

  it('makes a new database again when its creation was killed part way, and keeps a finished one', async () => {
    const dir = tempDir();
    const pg = path.join(dir, 'pg');
    // While PGlite creates the database, the creation is marked beside it.
    const create = PGlite.create;
    const createWith = create.bind(PGlite) as (o: PGliteOptions) => ReturnType<typeof create>;
    const markedWhileCreating: boolean[] = [];
    PGlite.create = ((o: PGliteOptions) => {
      // (initdb runs in a second PGlite of its own, without a folder)
      if (o.dataDir === pg) markedWhileCreating.push(fs.existsSync(`${pg}.creating`));
      return createWith(o);
    }) as typeof create;
    try {
      const s = await Store.open({ dir });
      await s.transaction((r) => r.conversations.upsert('me', conversation('kept', []), NOW));
      await s.close();
    } finally {
      PGlite.create = create;
    }
    expect(markedWhileCreating).toEqual([true]);
    expect(fs.readdirSync(dir)).not.toContain('pg.creating');
    const reopened = await Store.open({ dir });
    expect(await reopened.read.conversations.byExternalId('me', 'kept')).toHaveLength(1);
    await reopened.close();

    // Killed while its files were written: Postgres's version file is there, the rest is not.
    fs.rmSync(pg, { recursive: true });
    fs.mkdirSync(pg);
    fs.writeFileSync(path.join(pg, 'PG_VERSION'), '17\n');
    fs.writeFileSync(`${pg}.creating`, '');
    const remade = await Store.open({ dir });
    expect(await remade.read.conversations.byExternalId('me', 'kept')).toEqual([]);
    await remade.close();
    expect(fs.readdirSync(dir)).not.toContain('pg.creating');
  });
});

describe('reads and writes', () => {
  const store = useStore();

  it('hands out the same read-only repositories on every access', () => {
    expect(store().read).toBe(store().read);
    expect(store().read.facts).toBe(store().read.facts);
  });

  it('has no write method on the read view: writes exist only inside a transaction', async () => {
    const read = store().read as unknown as Record<string, Record<string, unknown>>;
    const writes = await store().transaction(async (r) => {
      const all = r as unknown as Record<string, Record<string, unknown>>;
      expect(Object.keys(all).sort()).toEqual(Object.keys(read).sort());
      return Object.fromEntries(Object.keys(all).map((name) => [name, Object.keys(all[name]!).filter((m) => !(m in read[name]!))]));
    });
    // Every read method is also there inside a transaction, reading its uncommitted rows.
    for (const name of Object.keys(read)) expect(Object.keys(read[name]!).length).toBeGreaterThan(0);
    expect(writes).toMatchObject({
      episodes: expect.arrayContaining(['insert', 'update', 'rewrite', 'delete', 'recordAccess']),
      conversations: expect.arrayContaining(['upsert', 'addMessages', 'linkToEpisode', 'releaseMessages', 'markProcessed']),
      bm25: expect.arrayContaining(['add', 'remove', 'rebuild', 'park', 'unpark', 'dropParked']),
      vectors: expect.arrayContaining(['ensureIndex', 'upsert', 'remove']),
      graph: ['setEpisodeGraph'],
      facts: expect.arrayContaining(['insert', 'update', 'recordAccess', 'setTier', 'setImportance', 'mark', 'delete']),
      factVersions: expect.arrayContaining(['add', 'markCorrected', 'prune']),
      factLinks: ['link'],
      relationships: ['relate'],
      factTerms: ['set'],
      factVectors: expect.arrayContaining(['set', 'remove']),
      factForgetting: ['setReasons'],
      discoveryQueue: expect.arrayContaining(['enqueue', 'dequeue', 'failed']),
      settings: ['put'],
      llm: expect.arrayContaining(['logUsage', 'putSettings']),
      importPreferences: ['rememberMe'],
      baseline: [],
    });
    for (const [name, methods] of Object.entries(writes)) for (const m of methods) expect(read[name]).not.toHaveProperty(m);
  });

  it('sees its own uncommitted writes inside a transaction, and commits them together', async () => {
    const [a] = owners();
    const id = await store().transaction(async (r) => {
      const id = await r.episodes.insert(a, null, draft('Boots'), NOW);
      expect(await r.episodes.get(a, id)).toMatchObject({ title: 'Boots' });
      await r.discoveryQueue.enqueue(a, [id], NOW);
      return id;
    });
    expect(await store().read.episodes.get(a, id)).toMatchObject({ title: 'Boots' });
    expect(await store().read.discoveryQueue.size(a)).toEqual({ waiting: 1, failed: 0 });
  });

  it('leaves nothing behind when a transaction throws, across every repository it wrote through', async () => {
    const [a] = owners();
    await rolledBack(store(), async (r) => {
      const { id: conversationId } = await r.conversations.upsert(a, conversation('chat', ['hello']), NOW);
      await r.conversations.addMessages(a, conversationId, conversation('chat', ['hello']));
      const episodeId = await r.episodes.insert(a, conversationId, draft('Hello'), NOW);
      await r.bm25.add(a, [doc(episodeId, ['hello'])], bm25Params);
      await r.discoveryQueue.enqueue(a, [episodeId], NOW);
      await r.facts.insert(a, newFact('person:lin', 'says hello'), NOW);
      await r.importPreferences.rememberMe(a, 'test', 'Lin', NOW);
    });
    const read = store().read;
    expect(await read.episodes.counts(a)).toEqual({ episodes: 0, conversations: 0, messages: 0, lastWrite: null });
    expect(await read.bm25.docCount(a)).toBe(0);
    expect(await read.bm25.verify(a)).toEqual(CONSISTENT);
    expect(await read.discoveryQueue.size(a)).toEqual({ waiting: 0, failed: 0 });
    expect(await read.facts.byKey(a, 'person:lin')).toBeNull();
    expect(await read.importPreferences.me(a, 'test')).toBeNull();
  });

  it('remembers a read until the next transaction ends, committed or rolled back; a failed read is asked again', async () => {
    const [a] = owners();
    let asked = 0;
    const episodesOfA = () =>
      store().untilNextWrite(`test:${a}`, async (r) => {
        asked++;
        return (await r.episodes.counts(a)).episodes;
      });
    expect(await episodesOfA()).toBe(0);
    expect(await episodesOfA()).toBe(0);
    expect(asked).toBe(1);

    await store().transaction((r) => r.episodes.insert(a, null, draft('Kite'), NOW));
    expect(await episodesOfA()).toBe(1);
    expect(asked).toBe(2);

    await rolledBack(store(), (r) => r.episodes.insert(a, null, draft('Lost kite'), NOW));
    expect(await episodesOfA()).toBe(1);
    expect(asked).toBe(3);

    const failing = () =>
      store().untilNextWrite(`test-failing:${a}`, async () => {
        asked++;
        throw new Error('unreadable');
      });
    await expect(failing()).rejects.toThrow('unreadable');
    await expect(failing()).rejects.toThrow('unreadable');
    expect(asked).toBe(5);
  });

  it('refuses reads and transactions once closed', async () => {
    const s = await Store.open();
    await s.close();
    expect(() => s.read).toThrow('the store is closed');
    await expect(s.transaction(async () => 1)).rejects.toThrow('the store is closed');
  });
});
