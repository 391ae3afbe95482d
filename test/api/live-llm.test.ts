/**
 * Live memory with an LLM (a scripted OpenAI-compatible server on 127.0.0.1): `addMemory` never waits for
 * the model, a new turn is findable while the model is still thinking, the LLM's boundaries close
 * segments into LLM episodes, and an unreachable LLM leaves heuristic stand-ins, never lost turns.
 */
import { describe, expect, it } from 'vitest';
import type { Engine } from '../../core/engine/open-engine.js';
import { newOwner, openMemoryEngine } from '../helpers/engine.js';
import { closedPortUrl, startLlmServer, type LlmServer, type RecordedRequest } from '../helpers/llm-server.js';
import { task } from '../llm/script.js';
import { scriptedLlmEngine } from '../llm/scripted-engine.js';

const MIN = 60_000;
let now = Date.parse('2024-05-01T09:00:00+08:00');
const clock = { now: () => new Date(now) };
const llm = { model: 'scripted-model', timeoutMs: 10_000, backoffMs: 1, maxRetries: 1 };
const warnings: string[] = [];
const { server, engine } = scriptedLlmEngine({ llm, clock, warnings });

const narrative = (title: string, content: string) => ({
  title,
  content,
  summary: title,
  topics: [],
  keywords: [],
  entities: [],
  relationships: [],
  importance: 0.5,
});

/** Knowledge discovery reads the closed episodes in the background: it learns nothing here. */
function scriptDiscovery(s: LlmServer): void {
  s.on(task('semantic-reconstruct'), { content: 'They talked.' }).on(task('semantic-gaps'), {
    json: { knowledge_gaps: [], relationships: [] },
  });
}

async function episodes(e: Engine, ownerId: string) {
  return (await e.call('listEpisodes', { ownerId, limit: 100 })).episodes.sort((a, b) => a.start.localeCompare(b.start));
}

async function say(e: Engine, ownerId: string, conversationId: string | undefined, speaker: string, text: string) {
  const r = await e.call('addMemory', {
    ownerId,
    ...(conversationId ? { conversationId } : {}),
    messages: [{ speaker, text, time: new Date(now).toISOString() }],
  });
  now += 2 * MIN;
  return r;
}

describe('addMemory with an LLM', () => {
  it('returns while the LLM has not answered; the new turn is already findable; the reply, once released, shapes the episodes', async () => {
    let release!: () => void;
    const reply = new Promise<void>((resolve) => (release = resolve));
    let replied = false;
    void reply.then(() => (replied = true));
    let asked!: () => void;
    const boundaryAsked = new Promise<void>((resolve) => (asked = resolve));
    server().on(task('episode-boundaries'), () => {
      asked();
      return { after: reply, json: { boundaries: [] } };
    });
    server().on(task('episode-narrative', 'passport'), {
      json: narrative(
        'Ana renews her passport',
        'On 1 May 2024 Ana told Ben that her passport expires in June 2024 and she will renew it at the consulate.',
      ),
    });
    scriptDiscovery(server());
    const ownerId = newOwner('slow');

    const a = await say(engine(), ownerId, undefined, 'Ana', 'My passport expires in June.');
    await engine().idle(); // one message: nothing to ask the LLM yet
    expect(server().chats()).toHaveLength(0);

    const b = await say(engine(), ownerId, a.conversationId, 'Ben', 'Renew it at the consulate then.');
    expect(b.stored).toBe(1);
    await boundaryAsked; // the background job now waits for the model …
    const found = await engine().call('search', { ownerId, query: 'consulate', mode: 'bm25' });
    expect(found.results[0]?.sources.map((s) => s.id)).toEqual([...a.messageIds, ...b.messageIds]);

    // … and a further turn is acknowledged all the same: addMemory resolved with the reply still held back.
    const c = await say(engine(), ownerId, a.conversationId, 'Ana', 'I booked the consulate for Friday.');
    expect(c).toMatchObject({ conversationId: a.conversationId, stored: 1, duplicates: 0 });
    expect(replied).toBe(false);
    expect(server().chats().filter(task('episode-boundaries'))).toHaveLength(1);

    release();
    await engine().idle();
    let eps = await episodes(engine(), ownerId);
    expect(eps.map((e) => [e.processingStatus, e.builder, e.messageIds.length])).toEqual([['open', 'heuristic', 3]]);

    await engine().call('endConversation', { ownerId, conversationId: a.conversationId });
    await engine().idle();
    eps = await episodes(engine(), ownerId);
    expect(eps.map((e) => [e.processingStatus, e.builder, e.title])).toEqual([['ready', 'llm', 'Ana renews her passport']]);
    expect(eps[0]!.messageIds).toEqual([...a.messageIds, ...b.messageIds, ...c.messageIds]);
    // The closed episode was queued for knowledge discovery, which the job started behind it (awaited here).
    expect(await engine().call('runDiscovery', { ownerId })).toMatchObject({ failed: 0, remaining: 0 });
    expect(warnings).toEqual([]);
  });

  it("the LLM's boundary closes the segment before it into an LLM episode; the rest stays open", async () => {
    // The model starts a new episode at the first message about Mochi (never at [0]).
    server().on(task('episode-boundaries'), (r: RecordedRequest) => {
      const k = Number(/\[(\d+)\][^\n]*Mochi/.exec(r.prompt)?.[1] ?? 0);
      return { json: { boundaries: k > 0 ? [k] : [] } };
    });
    server().on(task('episode-narrative', 'tomatoes'), {
      json: narrative(
        'Watering the garden',
        'On 1 May 2024 Ana asked Ben whether he had watered the tomatoes; he had watered them and the basil that morning.',
      ),
    });
    scriptDiscovery(server());
    const ownerId = newOwner('cut');
    const turns: [string, string][] = [
      ['Ana', 'Did you water the tomatoes?'],
      ['Ben', 'Yes, the tomatoes and the basil, this morning.'],
      ['Ana', 'Great, the tomatoes need it in this heat.'],
      ['Ben', 'By the way, my sister adopted a puppy called Mochi.'],
      ['Ana', 'Mochi! What breed?'],
    ];
    let conversationId: string | undefined;
    for (const [speaker, text] of turns) {
      conversationId = (await say(engine(), ownerId, conversationId, speaker, text)).conversationId;
      await engine().idle();
    }
    const eps = await episodes(engine(), ownerId);
    expect(eps.map((e) => [e.processingStatus, e.builder, e.messageIds.length])).toEqual([
      ['ready', 'llm', 3],
      ['open', 'heuristic', 2],
    ]);
    expect(eps[0]!.content).toContain('1 May 2024');
    // Only the closed episode was written by the model: one narrative request.
    expect(server().chats().filter(task('episode-narrative'))).toHaveLength(1);
    expect(await engine().call('runDiscovery', { ownerId })).toMatchObject({ failed: 0, remaining: 0 });
  });

  it('closing the engine does not wait for an LLM that never answers: the rebuild is aborted and reports nothing', async () => {
    const silent = await startLlmServer();
    let asked!: () => void;
    const boundaryAsked = new Promise<void>((resolve) => (asked = resolve));
    silent.on(task('episode-boundaries'), () => {
      asked();
      return { hang: true };
    });
    // A ten-minute timeout: were close to wait for the reply, this test would run out of time instead.
    const e = await openMemoryEngine({ clock, llm: { ...llm, timeoutMs: 600_000, baseUrl: silent.url }, warn: (m) => warnings.push(m) });
    try {
      const ownerId = newOwner('close');
      const a = await say(e, ownerId, undefined, 'Ana', 'The gym opens at six.');
      await say(e, ownerId, a.conversationId, 'Ben', 'Then we go at six thirty.');
      await boundaryAsked;
      await e.close();
      expect(warnings).toEqual([]);
    } finally {
      await silent.close();
    }
  });

  it('an unreachable LLM: turns are still acknowledged and findable, and close into heuristic stand-ins marked needs_rebuild', async () => {
    const down = await openMemoryEngine({ clock, llm: { ...llm, baseUrl: await closedPortUrl() }, warn: (m) => warnings.push(m) });
    try {
      const ownerId = newOwner('down');
      const a = await say(down, ownerId, undefined, 'Ana', 'The boiler makes a knocking noise.');
      await say(down, ownerId, a.conversationId, 'Ben', 'Call the plumber about the boiler.');
      await down.idle();
      const found = await down.call('search', { ownerId, query: 'boiler plumber', mode: 'bm25' });
      expect(found.results[0]?.sources).toHaveLength(2);
      now += 30 * MIN;
      await down.idle();
      const eps = await episodes(down, ownerId);
      expect(eps.map((e) => [e.processingStatus, e.builder, e.messageIds.length])).toEqual([['needs_rebuild', 'heuristic', 2]]);
      expect(warnings.some((w) => w.includes('could not build'))).toBe(true);
    } finally {
      await down.close();
    }
  });
});
