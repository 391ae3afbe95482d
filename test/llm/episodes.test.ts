import { describe, expect, it } from 'vitest';
import { newOwner, openMemoryEngine } from '../helpers/engine.js';
import { closedPortUrl, type LlmServer, type ScriptReply } from '../helpers/llm-server.js';
import { MESSAGES, narratives, scriptHappy, task, twoSessions } from './script.js';
import { scriptedLlmEngine } from './scripted-engine.js';

const warnings: string[] = [];
// Short backoffs, and a 300 ms timeout where a hang is scripted: every failure mode finishes in well under a
// second. Elsewhere the timeout is generous so a loaded test machine never turns a good reply into a timeout.
const llm = { model: 'scripted-model', timeoutMs: 10_000, backoffMs: 1, maxRetries: 2 };
const { server, engine } = scriptedLlmEngine({ llm, warnings });

async function episodes(ownerId: string) {
  return (await engine().call('listEpisodes', { ownerId, limit: 100 })).episodes.sort((a, b) => a.start.localeCompare(b.start));
}

/** Every message is in exactly one episode: nothing lost, nothing duplicated. */
async function expectEveryMessageOnce(ownerId: string) {
  const ids = (await episodes(ownerId)).flatMap((e) => e.messageIds);
  expect(ids).toHaveLength(MESSAGES);
  expect(new Set(ids).size).toBe(MESSAGES);
}

describe('importing with an LLM', () => {
  it('builds LLM episodes whose narratives carry absolute dates, with entities linked across the two sessions', async () => {
    scriptHappy(server());
    const ownerId = newOwner();
    const out = await engine().call('importFiles', { ownerId, paths: [twoSessions] });
    expect(out.files[0]).toMatchObject({ error: null, messagesAdded: MESSAGES, episodesCreated: 3 });

    // Boundaries are asked once per session (the 43-day silence always cuts), not once per message.
    expect(server().chats().filter(task('episode-boundaries'))).toHaveLength(2);
    expect(server().chats().filter(task('episode-narrative'))).toHaveLength(3);
    // The model sees each message's local time and the relative dates already resolved.
    const otterPrompt = server().chats().find(task('episode-narrative', 'otters'))!.prompt;
    expect(otterPrompt).toContain('Tue 2023-06-20 19:30 Alice: Em called yesterday (2023-06-19)');
    expect(otterPrompt).toMatch(/conversation's own language/);

    const [lisbon, otters, dentist] = await episodes(ownerId);
    for (const e of [lisbon!, otters!, dentist!])
      expect(e).toMatchObject({ builder: 'llm', processingStatus: 'ready', processingVersion: 'llm-1' });
    expect(lisbon!.content).toContain('8 May 2023');
    expect(lisbon!.content).toContain('1 June 2023');
    expect(otters!.content).toContain('19 June 2023');
    expect(dentist!.content).toContain('23 June 2023');
    expect(lisbon!.start).toBe('2023-05-08T07:00:00.000Z');
    expect(otters!.messageIds).toHaveLength(2);
    expect(dentist!.messageIds).toHaveLength(2);
    expect(lisbon).toMatchObject({
      title: narratives.lisbon.title,
      episodeType: 'social',
      importance: 0.8,
      keywords: narratives.lisbon.keywords,
      metadata: {
        topics: ['new job', 'moving'],
        emotions: [
          { label: 'proud', valence: 0.8, intensity: 0.8 },
          { label: 'excited', valence: 0.8, intensity: 0.8 },
        ],
        custom: { eventType: 'LifeEvent', emotionalValence: { sentiment: 'positive', intensity: 0.8 } },
      },
    });
    expect(lisbon!.metadata.timeReferences.map((t) => t.start)).toContain('2023-06');

    // Emma of 8 May and "Em" of 20 June are one entity; Alice is one entity in all three episodes.
    const g1 = await engine().call('episodeGraph', { ownerId, id: lisbon!.id });
    const g2 = await engine().call('episodeGraph', { ownerId, id: otters!.id });
    const emma1 = g1.entities.find((e) => e.name === 'Emma')!;
    const emma2 = g2.entities.find((e) => e.id === emma1.id);
    expect(emma2).toMatchObject({ name: 'Emma', type: 'PERSON', aliases: ['Em'] });
    expect(g1.relationships.map((r) => [r.subject.name, r.predicate, r.object.name])).toEqual([
      ['Emma', 'SISTER_OF', 'Alice'],
      ['Emma', 'WORKS_AT', 'Lisbon aquarium'],
    ]);
    expect(g2.relationships[0]).toMatchObject({ subject: { id: emma1.id }, predicate: 'LIKES', object: { name: 'otters' } });
    const entities = (await engine().call('listEntities', { ownerId })).entities;
    expect(entities.find((e) => e.name === 'Alice')).toMatchObject({ episodes: 3 });
    expect(entities.filter((e) => e.name.toLowerCase() === 'alice')).toHaveLength(1);
    expect((await engine().call('listEntities', { ownerId, query: 'EM' })).entities).toEqual([
      expect.objectContaining({ id: emma1.id, episodes: 2 }),
    ]);

    // Narratives are searchable; the sources are the session's own messages.
    const hit = (await engine().call('search', { ownerId, query: 'otters', mode: 'bm25' })).results[0]!;
    expect(hit.id).toBe(otters!.id);
    expect(hit.sources.map((s) => s.externalId)).toEqual(['t1', 't2']);
  });

  it('records every request in the usage log, with tokens per operation', async () => {
    scriptHappy(server());
    const ownerId = newOwner();
    await engine().call('importFiles', { ownerId, paths: [twoSessions] });
    const usage = await engine().call('llmUsage', { ownerId, limit: 10 });
    // Two boundary requests, three narratives, then discovery reads each episode twice (reconstruct, gaps).
    expect(usage.totals).toMatchObject({
      requests: server().chats().length,
      ok: 11,
      failed: 0,
      tokensIn: 100 * 8 + 900 + 800 + 700,
      tokensOut: 20 * 8 + 300 + 250 + 200,
    });
    expect(usage.byOperation.map((o) => [o.operation, o.model, o.requests]).sort()).toEqual([
      ['episode.boundaries', 'scripted-model', 2],
      ['episode.narrative', 'scripted-model', 3],
      ['semantic.gaps', 'scripted-model', 3],
      ['semantic.reconstruct', 'scripted-model', 3],
    ]);
    expect(usage.recent).toHaveLength(10);
    expect((await engine().call('llmUsage', { ownerId: newOwner() })).totals.requests).toBe(0);
  });

  it('deleting an episode removes its links, its triples and the entities only it mentioned', async () => {
    scriptHappy(server());
    const ownerId = newOwner();
    await engine().call('importFiles', { ownerId, paths: [twoSessions] });
    const [lisbon] = await episodes(ownerId);
    await engine().call('deleteEpisode', { ownerId, id: lisbon!.id });
    const names = (await engine().call('listEntities', { ownerId })).entities.map((e) => e.name).sort();
    // The aquarium was only in the deleted episode; Emma lives on through 20 June (as "Emma", her first name).
    expect(names).toEqual(['Alice', 'Bob', 'Emma', 'otters']);
  });
});

/** `settings` switches the engine's LLM for the import only (a dead port, a short timeout). */
type Mode = { name: string; script: (s: LlmServer) => void; settings?: () => Promise<{ baseUrl?: string; timeoutMs?: number }> };
const always = (reply: ScriptReply) => (s: LlmServer) => void s.on(() => true, reply);

const modes: Mode[] = [
  {
    name: 'malformed JSON from boundary detection, also after the repair',
    script: (s) => void s.on(task('episode-boundaries'), { content: 'Sure! The boundaries are 2 and 5.' }),
  },
  {
    name: 'malformed narratives',
    script: (s) => {
      s.on(task('episode-narrative'), { content: '{"title": "Emma' });
      scriptHappy(s);
    },
  },
  { name: '429 with Retry-After on every request', script: always({ status: 429, headers: { 'retry-after': '0' } }) },
  { name: '500 on every request', script: always({ status: 500 }) },
  { name: 'a reply that hangs past the timeout', script: always({ hang: true }), settings: async () => ({ timeoutMs: 300 }) },
  { name: 'an endpoint nobody listens on', script: () => {}, settings: async () => ({ baseUrl: await closedPortUrl() }) },
];

describe('when the LLM fails', () => {
  it.each(modes)(
    '$name: no partial episode; heuristic episodes marked for rebuild; rebuildEpisodes upgrades them in place',
    async (mode) => {
      const ownerId = newOwner();
      mode.script(server());
      if (mode.settings) await engine().call('setLlmSettings', { ...llm, baseUrl: server().url, ...(await mode.settings()) });
      try {
        const out = await engine().call('importFiles', { ownerId, paths: [twoSessions] });
        expect(out.files[0]).toMatchObject({ error: null, messagesAdded: MESSAGES });
      } finally {
        if (mode.settings) await engine().call('setLlmSettings', { ...llm, baseUrl: server().url });
      }
      const before = await episodes(ownerId);
      expect(before.length).toBeGreaterThan(0);
      for (const e of before) expect(e).toMatchObject({ builder: 'heuristic', processingStatus: 'needs_rebuild' });
      await expectEveryMessageOnce(ownerId);
      expect((await engine().call('listEntities', { ownerId })).entities).toEqual([]);
      expect(warnings.join('\n')).toMatch(/marked for `nemori rebuild --llm`/);
      // Every request was logged, failed ones included.
      const usage = await engine().call('llmUsage', { ownerId });
      const unreachable = mode.name.startsWith('an endpoint nobody');
      expect(usage.totals.requests).toBe(unreachable ? llm.maxRetries + 1 : server().chats().length);
      expect(usage.totals.failed).toBeGreaterThan(0);

      // The LLM is back.
      server().reset();
      scriptHappy(server());
      const beforeIds = new Set(before.map((e) => e.id));
      const report = await engine().call('rebuildEpisodes', { ownerId });
      expect(report).toMatchObject({ failed: 0, remaining: 0, stoppedEarly: false, episodesCreated: 3 });
      const after = await episodes(ownerId);
      expect(after.map((e) => e.title)).toEqual([narratives.lisbon.title, narratives.otters.title, narratives.dentist.title]);
      for (const e of after) expect(e).toMatchObject({ builder: 'llm', processingStatus: 'ready' });
      await expectEveryMessageOnce(ownerId);
      // In place: the upgraded episodes took over the ids of the ones they replaced.
      expect(after.filter((e) => beforeIds.has(e.id)).length).toBe(Math.min(3, before.length));
      // The old BM25 entries are gone ("stuff" was only in the raw messages), the new ones are found.
      expect((await engine().call('search', { ownerId, query: 'stuff', mode: 'bm25' })).results).toEqual([]);
      expect((await engine().call('search', { ownerId, query: 'hired', mode: 'bm25' })).results.map((r) => r.id)).toEqual([after[0]!.id]);
      const entities = (await engine().call('listEntities', { ownerId })).entities;
      expect(entities.find((e) => e.name === 'Emma')).toMatchObject({ episodes: 2 });
    },
  );

  it('only the episode whose narrative keeps failing falls back; the next rebuild upgrades just that one', async () => {
    const ownerId = newOwner();
    server().on(task('episode-narrative', 'dentist'), { content: 'no JSON here' }, 2);
    scriptHappy(server());
    await engine().call('importFiles', { ownerId, paths: [twoSessions] });
    const before = await episodes(ownerId);
    expect(before.map((e) => [e.builder, e.processingStatus])).toEqual([
      ['llm', 'ready'],
      ['llm', 'ready'],
      ['heuristic', 'needs_rebuild'],
    ]);
    await expectEveryMessageOnce(ownerId);

    const report = await engine().call('rebuildEpisodes', { ownerId });
    expect(report).toMatchObject({ groups: 1, upgraded: 1, episodesReplaced: 1, episodesCreated: 1, remaining: 0 });
    const after = await episodes(ownerId);
    expect(after.map((e) => e.id)).toEqual(before.map((e) => e.id));
    expect(after[2]).toMatchObject({ builder: 'llm', title: narratives.dentist.title });
  });

  it('a rebuild while the LLM still fails changes nothing and says why', async () => {
    const ownerId = newOwner();
    server().on(() => true, { status: 500 });
    await engine().call('importFiles', { ownerId, paths: [twoSessions] });
    const before = await episodes(ownerId);
    const report = await engine().call('rebuildEpisodes', { ownerId });
    expect(report).toMatchObject({ groups: 1, upgraded: 0, failed: 1, remaining: before.length });
    expect(report.errors[0]).toMatch(/server error 500/);
    expect(await episodes(ownerId)).toEqual(before);
  });
});

describe('without an LLM', () => {
  it('makes no request, builds ready heuristic episodes, and a later rebuild --llm (scope heuristic) upgrades them', async () => {
    const plain = await openMemoryEngine();
    try {
      const ownerId = newOwner();
      expect((await plain.call('health', {})).llm).toEqual({
        configured: false,
        reachable: null,
        model: null,
        baseUrl: null,
        modelListed: null,
        latencyMs: null,
        error: null,
      });
      await plain.call('importFiles', { ownerId, paths: [twoSessions] });
      expect(server().requests).toHaveLength(0);
      const before = (await plain.call('listEpisodes', { ownerId })).episodes;
      for (const e of before) expect(e).toMatchObject({ builder: 'heuristic', processingStatus: 'ready' });
      await expect(plain.call('rebuildEpisodes', { ownerId })).rejects.toThrow(/no LLM is configured/);

      // Configured later through the settings API (as the desktop app does).
      const view = await plain.call('setLlmSettings', { ...llm, baseUrl: server().url, apiKey: 'sk-settings-key-0000001234' });
      expect(view).toMatchObject({ enabled: true, source: 'settings', model: 'scripted-model', apiKeySet: true, apiKeyHint: '…1234' });
      expect(JSON.stringify(view)).not.toContain('sk-settings');
      scriptHappy(server());
      expect(await plain.call('rebuildEpisodes', { ownerId })).toMatchObject({ remaining: 0, failed: 0 });
      expect(await plain.call('rebuildEpisodes', { ownerId, scope: 'heuristic' })).toMatchObject({ upgraded: 1, episodesCreated: 3 });
      const after = (await plain.call('listEpisodes', { ownerId })).episodes;
      expect(after.every((e) => e.builder === 'llm')).toBe(true);
      expect(after.flatMap((e) => e.messageIds).sort()).toEqual(before.flatMap((e) => e.messageIds).sort());
      expect(
        server()
          .chats()
          .every((r) => r.headers.authorization === 'Bearer sk-settings-key-0000001234'),
      ).toBe(true);

      expect(await plain.call('setLlmSettings', { enabled: false })).toMatchObject({ enabled: false, source: 'none' });
      expect((await plain.call('health', {})).llm.configured).toBe(false);
    } finally {
      await plain.close();
    }
  });
});

describe('health and the connection test', () => {
  it('reports whether the LLM answers and which model it is, spending no tokens', async () => {
    const h = await engine().call('health', {});
    expect(h.ok).toBe(true);
    expect(h.llm).toMatchObject({
      configured: true,
      reachable: true,
      model: 'scripted-model',
      baseUrl: server().url,
      modelListed: true,
      error: null,
    });
    expect(server().chats()).toHaveLength(0);

    await engine().call('setLlmSettings', { model: 'qwen2.5:7b', baseUrl: await closedPortUrl() });
    try {
      const d = await engine().call('health', {});
      expect(d.ok).toBe(true);
      expect(d.llm).toMatchObject({ configured: true, reachable: false, model: 'qwen2.5:7b', error: { code: 'LLM_UNAVAILABLE' } });
      expect(d.warnings.join('\n')).toMatch(/LLM qwen2\.5:7b .* cannot reach/);
    } finally {
      await engine().call('setLlmSettings', { ...llm, baseUrl: server().url });
    }
  });

  it('llmTest makes one tiny JSON completion and logs it as a machine-level call', async () => {
    server().on(task('connection-test'), { json: { ok: true }, usage: { prompt_tokens: 40, completion_tokens: 5 } });
    expect(await engine().call('llmTest', {})).toMatchObject({
      configured: true,
      ok: true,
      model: 'scripted-model',
      modelListed: true,
      tokensIn: 40,
      tokensOut: 5,
      error: null,
    });
    server().reset();
    server().on(task('connection-test'), { content: 'OK!' });
    expect(await engine().call('llmTest', {})).toMatchObject({ ok: false, error: { code: 'LLM_BAD_REPLY' } });
    // Connection tests work on nobody's memory: they are listed with the machine-level calls only.
    const usage = await engine().call('llmUsage', { ownerId: newOwner(), includeMachineCalls: true });
    expect(usage.byOperation.find((o) => o.operation === 'connection-test')).toMatchObject({ requests: 3, ok: 1, failed: 2 });
  });
});
