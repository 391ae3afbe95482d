/**
 * What an import tells a window while it runs: a phase per stage (messages stored, messages gathered
 * into episodes, episodes embedded, knowledge discovery), each counting up to its total, once, with
 * totals over the whole batch of files, also when importing again adds nothing.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Engine, ProgressEvent } from '../../core/engine/open-engine.js';
import { openEmbedder } from '../../core/embed/transformers-embedder.js';
import { tinyModelOptions } from '../fixtures/tiny-model/index.js';
import { fixture, grownTwoDaysFile, manyConversationsFile, newOwner, openMemoryEngine, tempDir } from '../helpers/engine.js';
import { startLlmServer, type LlmServer } from '../helpers/llm-server.js';
import { MESSAGES, scriptHappy, twoSessions } from '../llm/script.js';

async function importWithProgress(engine: Engine, ownerId: string, paths: string[]) {
  const events: ProgressEvent[] = [];
  const out = await engine.call('importFiles', { ownerId, paths }, { onProgress: (e) => events.push(e) });
  return { out, events };
}

const phasesOf = (events: ProgressEvent[]) => [...new Set(events.map((e) => e.phase))];
const last = (events: ProgressEvent[], phase: string) => events.filter((e) => e.phase === phase).at(-1);

/** Every phase counts up, never past its total, and ends at it. */
function expectEachPhaseCountsUpToItsTotal(events: ProgressEvent[]): void {
  for (const phase of phasesOf(events)) {
    const of = events.filter((e) => e.phase === phase);
    for (const [i, e] of of.entries()) {
      expect(e.done, `${phase} #${i}`).toBeLessThanOrEqual(e.total);
      if (i > 0) expect(e.done, `${phase} #${i}`).toBeGreaterThanOrEqual(of[i - 1]!.done);
      if (i > 0) expect(e.total, `${phase} #${i}`).toBeGreaterThanOrEqual(of[i - 1]!.total);
    }
    expect(of.at(-1)!.done, `${phase} ends at its total`).toBe(of.at(-1)!.total);
  }
}

describe('import progress, with an embedding model and a language model', { timeout: 120_000 }, () => {
  let server: LlmServer;
  let engine: Engine;
  beforeAll(async () => {
    server = await startLlmServer();
    scriptHappy(server);
    engine = await openMemoryEngine({
      embedder: await openEmbedder(tinyModelOptions()),
      llm: { model: server.model, baseUrl: server.url, timeoutMs: 10_000, backoffMs: 1, maxRetries: 1 },
    });
  });
  afterAll(async () => {
    await engine?.close();
    await server?.close();
  });

  it('reports messages stored, episodes built, embeddings and discovery in that order, each reaching its total', async () => {
    const ownerId = newOwner();
    const { out, events } = await importWithProgress(engine, ownerId, [twoSessions]);
    expect(out.files[0]).toMatchObject({ messagesAdded: MESSAGES, episodesCreated: 3 });

    expect(phasesOf(events)).toEqual(['import', 'episodes', 'embeddings', 'discovery']);
    expectEachPhaseCountsUpToItsTotal(events);
    // Messages and episodes count towards the messages of the batch from the first event on.
    for (const e of events.filter((x) => x.phase === 'import' || x.phase === 'episodes')) expect(e.total).toBe(MESSAGES);
    expect(last(events, 'episodes')).toMatchObject({ done: MESSAGES, facts: { episodes: 3 } });
    expect(last(events, 'embeddings')).toMatchObject({ done: 3, total: 3 });
    expect(last(events, 'discovery')).toMatchObject({ done: 3, total: 3 });
    // The file being read comes as data, for each window to word in its own language.
    expect(last(events, 'import')!.facts).toEqual({ file: { name: 'two-sessions.json', index: 1, count: 1 } });
    // Discovery reads the episodes once they are all built and embedded, and says so episode by episode.
    const reading = events.slice(events.findIndex((e) => e.phase === 'discovery' && e.total > 0));
    expect(reading.map((e) => [e.phase, e.done, e.total])).toEqual([0, 1, 2, 3].map((done) => ['discovery', done, 3]));

    // Importing again adds nothing, yet every bar still reaches its total.
    const again = await importWithProgress(engine, ownerId, [twoSessions]);
    expect(again.out.files[0]).toMatchObject({ messagesAdded: 0, episodesCreated: 0 });
    expectEachPhaseCountsUpToItsTotal(again.events);
    expect(last(again.events, 'import')).toMatchObject({ done: MESSAGES, total: MESSAGES });
    expect(last(again.events, 'episodes')).toMatchObject({ done: MESSAGES, total: MESSAGES, facts: { episodes: 0 } });
    expect(last(again.events, 'embeddings')).toMatchObject({ done: 0, total: 0 });
    // No new episodes: discovery has nothing to read.
    expect(again.out.discovery).toBeNull();
    expect(last(again.events, 'discovery')).toMatchObject({ done: 0, total: 0 });
  });
});

describe('import progress without models', () => {
  let engine: Engine;
  beforeAll(async () => {
    engine = await openMemoryEngine();
  });
  afterAll(async () => {
    await engine?.close();
  });

  it('counts towards the totals of the whole batch, says which file it reads, and that search is by keywords only', async () => {
    const ownerId = newOwner();
    const broken = path.join(tempDir(), 'cut.json');
    fs.writeFileSync(broken, '{"conversations": [');
    const many = manyConversationsFile(12);
    const { out, events } = await importWithProgress(engine, ownerId, [fixture('import', 'two-days.json'), broken, many]);
    expect(out.files.map((f) => f.messagesAdded)).toEqual([8, 0, 60]);

    // The file that cannot be read stores nothing and is no part of the totals.
    const total = 8 + 60;
    expect(phasesOf(events)).toEqual(['import', 'episodes', 'embeddings']);
    expectEachPhaseCountsUpToItsTotal(events);
    for (const e of events.filter((x) => x.phase !== 'embeddings')) expect(e.total).toBe(total);
    expect(events.filter((e) => e.phase === 'embeddings')).toEqual([
      { operation: 'importFiles', phase: 'embeddings', done: 0, total: 0, facts: { keywordOnly: true } },
    ]);
    const files = [...new Set(events.flatMap((e) => (e.facts?.file ? [JSON.stringify(e.facts.file)] : [])))].map((f) => JSON.parse(f));
    expect(files).toEqual([
      { name: 'two-days.json', index: 1, count: 3 },
      { name: 'many.json', index: 3, count: 3 },
    ]);
    expect(last(events, 'episodes')!.facts?.episodes).toBe(out.files.reduce((n, f) => n + f.episodesCreated, 0));
    // Conversation by conversation, not a jump to the end.
    expect(events.filter((e) => e.phase === 'import').map((e) => e.done)).toEqual([
      0,
      6,
      8,
      ...Array.from({ length: 12 }, (_, c) => 8 + 5 * (c + 1)),
    ]);
  });

  it('a conversation that grew counts its messages once, though its last episode is rebuilt with the new ones', async () => {
    const ownerId = newOwner();
    await engine.call('importFiles', { ownerId, paths: [fixture('import', 'two-days.json')] });
    const { out, events } = await importWithProgress(engine, ownerId, [grownTwoDaysFile('2023-05-08T09:20:00+02:00')]);
    expect(out.files[0]).toMatchObject({ messagesAdded: 1 });
    expectEachPhaseCountsUpToItsTotal(events);
    // The new message is gathered, then the rest of its conversation counts as in episodes, then the other conversation.
    expect(events.filter((e) => e.phase === 'episodes').map((e) => e.done)).toEqual([0, 1, 7, 9]);
    expect(last(events, 'embeddings')).toMatchObject({ facts: { keywordOnly: true } });
  });

  it('a preview stores nothing and so reports no progress', async () => {
    const events: ProgressEvent[] = [];
    await engine.call(
      'importFiles',
      { ownerId: newOwner(), paths: [fixture('import', 'two-days.json')], dryRun: true },
      { onProgress: (e) => events.push(e) },
    );
    expect(events).toEqual([]);
  });
});
