/**
 * Export → import into a fresh memory: the same counts per table, the same ids, the same fact versions and
 * the same top-10 search results; an encrypted export needs its passphrase; a memory that is not empty
 * is refused.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openEmbedder } from '../../core/embed/index.js';
import { readZipBuffer } from '../../core/ingest/zip.js';
import type { Engine } from '../../core/engine/open-engine.js';
import { tinyModelOptions } from '../fixtures/tiny-model/index.js';
import { fixture, newOwner, openMemoryEngine, tempDir } from '../helpers/engine.js';
import { writeZip } from '../ingest/zip-writer.js';

const QUERIES = [
  'glacier Zermatt',
  'Lisbon aquarium',
  '机器学习',
  '西湖 骑自行车',
  'Korean barbecue birthday',
  '肖邦 夜曲',
  'robotics interview Zurich',
  'jasmine tea',
  'bakery',
];
const spring = path.join(import.meta.dirname, '..', 'e2e', 'fixtures', 'spring-week.json');

let from: Engine;
let to: Engine;
beforeAll(async () => {
  const embedder = await openEmbedder(tinyModelOptions());
  from = await openMemoryEngine({ embedder });
  to = await openMemoryEngine({ embedder });
});
afterAll(async () => {
  await from.close();
  await to.close();
});

async function snapshot(engine: Engine, ownerId: string) {
  const counts = await engine.context.store.read.memoryTables.counts(ownerId);
  const episodes = [];
  for (
    let cursor: string | undefined, page;
    (page = await engine.call('listEpisodes', { ownerId, limit: 1000, ...(cursor ? { cursor } : {}) }));
  ) {
    episodes.push(...page.episodes);
    if (!page.nextCursor) break;
    cursor = page.nextCursor;
  }
  const facts = (await engine.call('listKnowledge', { ownerId, limit: 1000 })).facts;
  const histories = await Promise.all(facts.map((f) => engine.call('getKnowledge', { ownerId, key: f.id })));
  const searches = [];
  for (const query of QUERIES) {
    const r = await engine.call('search', { ownerId, query, limit: 10, markAccessed: false });
    searches.push(r.results.map((x) => [x.kind, x.id, Math.round(x.score * 1e6)]));
  }
  const trash = await engine.call('listTrash', { ownerId });
  const archive = await engine.call('listArchive', { ownerId });
  return {
    counts,
    episodes: episodes.map((e) => ({ ...e, ownerId: undefined })).sort((a, b) => a.id.localeCompare(b.id)),
    facts: histories.map((h) => ({
      id: h.fact.id,
      key: h.fact.key,
      versions: h.timeline.map((v) => [v.version, v.value, v.link, v.corrected]),
    })),
    searches,
    tiers: [...trash.items, ...archive.items].map((x) => [x.id, x.tier, x.reason]),
  };
}

describe('the open export', () => {
  it('comes back identical in a fresh memory: counts, ids, fact versions, tiers and search results', async () => {
    const ownerId = newOwner();
    await from.call('importFiles', { ownerId, paths: [fixture('import', 'two-days.json'), spring] });
    await from.call('upsertKnowledge', { ownerId, key: 'preference:tea', value: 'Likes green tea' });
    await from.call('upsertKnowledge', { ownerId, key: 'preference:tea', value: 'Likes oolong tea now' });
    await from.call('upsertKnowledge', { ownerId, key: 'preference:tea', value: 'Likes jasmine tea', metadata: { correction: true } });
    await from.call('memorize', { ownerId, value: 'Alice works at a bakery in Lisbon' });
    const { episodes } = await from.call('listEpisodes', { ownerId, limit: 3 });
    await from.call('markMemory', { ownerId, id: episodes[0]!.id, important: true });
    // Recalled twice: how often and when last come back with the episodes.
    for (let i = 0; i < 2; i++) await from.call('search', { ownerId, query: 'bakery Lisbon', limit: 3, markAccessed: true });
    // Long after, the rest fades into the archive (the important one stays); a fact goes to the trash.
    await from.call('runForgetting', { ownerId, now: '2028-06-01T00:00:00Z' });
    await from.call('upsertKnowledge', { ownerId, key: 'place:old flat', value: 'Lived on Rua Augusta' });
    await from.call('forgetKnowledge', { ownerId, instruction: 'key:place:old flat' });
    await from.call('setEngineSettings', { knowledge: { maxFacts: 5000, maxTokens: 900_000 } });
    // Credentials stay on this machine: an LLM key is never written into an export.
    await from.context.store.transaction((r) => r.settings.put('llm', { model: 'qwen', apiKey: 'sk-never-exported-0123456789' }));
    const before = await snapshot(from, ownerId);
    expect(before.counts.messages).toBeGreaterThan(0);
    expect(before.counts.semantic_versions).toBeGreaterThanOrEqual(4);
    expect(new Set(before.tiers.map(([, tier]) => tier))).toEqual(new Set(['archived', 'trash']));
    expect(before.searches.filter((s) => s.length > 0).length).toBeGreaterThan(QUERIES.length / 2);
    expect(before.facts.length).toBeGreaterThanOrEqual(2);
    expect(before.counts.episode_recalls).toBeGreaterThan(0);
    expect(Math.max(...before.episodes.map((e) => e.recallCount))).toBe(2);

    const dir = tempDir('nemori-export-');
    const file = path.join(dir, 'memory.zip');
    const out = await from.call('exportMemory', { ownerId, file });
    expect(out).toMatchObject({ file, encrypted: false, counts: { messages: before.counts.messages } });
    expect(fs.statSync(file).mode & 0o077).toBe(0);
    const entries = await readZipBuffer(fs.readFileSync(file), 'memory.zip');
    expect(JSON.parse(entries.get('nemori-export.json')!.toString())).toMatchObject({ format: 'nemori-export', schemaVersion: 1 });
    const settings = entries.get('settings.jsonl')!.toString();
    expect(settings).toContain('"model":"qwen"');
    expect(settings).not.toContain('sk-never-exported');

    const into = newOwner('restored');
    const back = await to.call('importMemory', { ownerId: into, file });
    expect(back.counts).toEqual(before.counts);
    const after = await snapshot(to, into);
    expect(after).toEqual(before);
    expect((await to.call('getEngineSettings', {})).knowledge).toEqual({ maxFacts: 5000, maxTokens: 900_000 });

    await expect(to.call('importMemory', { ownerId: into, file })).rejects.toThrow(/is not empty/);
  });

  it('an export an older store wrote, its keyword index in another shape, comes back with the index rebuilt', async () => {
    const ownerId = newOwner();
    await from.call('importFiles', { ownerId, paths: [fixture('import', 'two-days.json'), spring] });
    await from.call('search', { ownerId, query: 'glacier Zermatt', limit: 2, markAccessed: true });
    const before = await snapshot(from, ownerId);
    expect(before.episodes.filter((e) => e.recallCount === 1)).toHaveLength(2);
    const dir = tempDir('nemori-export-');
    const file = path.join(dir, 'memory.zip');
    await from.call('exportMemory', { ownerId, file });

    // The same export as a store at version 7 wrote it: postings one row per term and episode, documents
    // with their terms as text, no term or document numbers; an episode's recalls on its own row.
    const entries = await readZipBuffer(fs.readFileSync(file), 'memory.zip');
    type Row = Record<string, unknown>;
    const rows = (name: string): Row[] =>
      entries
        .get(name)!
        .toString()
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l) as Row);
    const terms = new Map(rows('index/bm25_terms.jsonl').map((t) => [t.id as number, t.term as string]));
    const docs = rows('index/bm25_docs.jsonl').map(({ doc_no: _no, term_ids, ...d }): Row => ({
      ...d,
      terms: (term_ids as number[]).map((id) => terms.get(id)),
    }));
    const postings = docs.flatMap((d) =>
      (d.terms as string[]).map((term, n) => ({
        owner_id: d.owner_id,
        term,
        episode_id: d.episode_id,
        impact: (d.impacts as number[])[n],
      })),
    );
    const recalls = new Map(rows('episode_recalls.jsonl').map((r) => [r.episode_id, r]));
    const old: Record<string, Row[]> = {
      'episodes.jsonl': rows('episodes.jsonl').map((e) => ({
        ...e,
        recall_count: recalls.get(e.id)?.recall_count ?? 0,
        last_accessed: recalls.get(e.id)?.last_accessed ?? null,
      })),
      'index/bm25_docs.jsonl': docs,
      'index/bm25_postings.jsonl': postings,
      'index/bm25_terms.jsonl': rows('index/bm25_terms.jsonl').map(({ owner_id, term, df }) => ({ owner_id, term, df })),
      'index/bm25_stats.jsonl': rows('index/bm25_stats.jsonl').map(({ next_term: _t, next_doc: _d, postings: _p, ...s }) => s),
    };
    const manifest = JSON.parse(entries.get('nemori-export.json')!.toString()) as {
      storeSchema: number;
      files: { file: string; rows: number }[];
    };
    manifest.storeSchema = 7;
    manifest.files = manifest.files.filter((f) => f.file !== 'episode_recalls.jsonl');
    for (const f of manifest.files) if (old[f.file]) f.rows = old[f.file]!.length;
    const older = writeZip(path.join(dir, 'older.zip'), [
      ...[...entries]
        .filter(([name]) => !old[name] && name !== 'nemori-export.json' && name !== 'episode_recalls.jsonl')
        .map(([name, data]) => ({ name, data })),
      ...Object.entries(old).map(([name, list]) => ({ name, data: list.map((r) => JSON.stringify(r)).join('\n') })),
      { name: 'nemori-export.json', data: JSON.stringify(manifest) },
    ]);

    const into = newOwner('older');
    await to.call('importMemory', { ownerId: into, file: older });
    const after = await snapshot(to, into);
    expect(after.counts).toEqual(before.counts);
    expect(after.episodes).toEqual(before.episodes);
    // Rebuilt at the final average field lengths, scores may move a little; what each query finds first does not.
    expect(after.searches.map((s) => s[0]?.[1])).toEqual(before.searches.map((s) => s[0]?.[1]));
    expect((await to.call('health', { deep: true })).ok).toBe(true);
  });

  it('an encrypted export needs its passphrase, and is refused when changed', async () => {
    const ownerId = newOwner();
    await from.call('importFiles', { ownerId, paths: [fixture('import', 'two-days.json')] });
    const dir = tempDir('nemori-export-');
    const file = path.join(dir, 'memory.nemori');
    const out = await from.call('exportMemory', { ownerId, file, passphrase: 'a long passphrase' });
    expect(out.encrypted).toBe(true);
    const bytes = fs.readFileSync(file);
    expect(bytes.includes(Buffer.from('nemori-export'))).toBe(false);
    const into = newOwner('sealed');
    await expect(to.call('importMemory', { ownerId: into, file })).rejects.toThrow(/is encrypted: give its passphrase/);
    await expect(to.call('importMemory', { ownerId: into, file, passphrase: 'another passphrase' })).rejects.toThrow(/wrong passphrase/);
    const flipped = path.join(dir, 'flipped.nemori');
    bytes[bytes.length - 40]! ^= 0x80;
    fs.writeFileSync(flipped, bytes);
    await expect(to.call('importMemory', { ownerId: into, file: flipped, passphrase: 'a long passphrase' })).rejects.toThrow(
      /changed or damaged/,
    );
    expect(await to.context.store.read.memoryTables.counts(into)).toMatchObject({ conversations: 0, messages: 0, episodes: 0 });
    const back = await to.call('importMemory', { ownerId: into, file, passphrase: 'a long passphrase' });
    expect(back.counts).toEqual(out.counts);
  });
});
