import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { Engine } from '../../core/engine/open-engine.js';
import { newOwner, openMemoryEngine } from '../helpers/engine.js';
import { startLlmServer, type LlmServer } from '../helpers/llm-server.js';
import { task } from '../llm/script.js';
import { johnConversations } from './script.js';

/** Discovery as a queue: it waits without an LLM, survives bad replies and a dead endpoint, and loses nothing. */

let server: LlmServer;
let engine: Engine;
const warnings: string[] = [];
const llm = { model: 'scripted-model', timeoutMs: 10_000, backoffMs: 1, maxRetries: 1 };

beforeAll(async () => {
  server = await startLlmServer();
  // Starts without an LLM: heuristic episodes, discovery waits.
  engine = await openMemoryEngine({ llm: null, warn: (m) => warnings.push(m) });
});
afterAll(async () => {
  await engine.close();
  await server.close();
});
beforeEach(async () => {
  server.reset();
  warnings.length = 0;
  await engine.call('setLlmSettings', { enabled: false });
});

const gapsFor = (value: string) => ({
  json: {
    knowledge_gaps: [{ key: 'person:John的研究方向', value, context: 'John说的', confidence: 0.9, messages: [1] }],
    relationships: [],
  },
});

async function ingestFirst(ownerId: string) {
  await engine.call('ingestConversation', { ownerId, conversation: johnConversations[0]! });
  const [episode] = (await engine.call('listEpisodes', { ownerId })).episodes;
  return episode!;
}

describe('knowledge discovery', () => {
  it('waits in the queue without an LLM, and runs once one is configured', async () => {
    const ownerId = newOwner();
    const episode = await ingestFirst(ownerId);
    const waiting = await engine.call('runDiscovery', { ownerId });
    expect(waiting).toMatchObject({ episodes: 0, remaining: 1 });
    expect(waiting.skipped).toMatch(/no LLM is configured: 1 episode waits for knowledge discovery/);
    expect((await engine.call('knowledgeCapacity', { ownerId })).discoveryQueue).toEqual({ waiting: 1, failed: 0 });
    expect(server.chats()).toHaveLength(0);

    server.on(task('semantic-reconstruct'), { content: 'John: 我在研究AI。' }).on(task('semantic-gaps'), gapsFor('大语言模型提示工程'));
    await engine.call('setLlmSettings', { ...llm, baseUrl: server.url });
    const ran = await engine.call('runDiscovery', { ownerId });
    expect(ran).toMatchObject({ episodes: 1, facts: { created: 1 }, remaining: 0, failed: 0, llmCalls: 2, skipped: null });
    const [fact] = (await engine.call('listKnowledge', { ownerId })).facts;
    expect(fact).toMatchObject({ key: 'person:john的研究方向', discoveryEpisodeId: episode.id, version: 1 });
    // The model saw the heuristic episode as the mask and the numbered original messages.
    const gapsPrompt = server.chats().find(task('semantic-gaps'))!.prompt;
    expect(gapsPrompt).toContain('[1] Mon 2024-01-15 10:00 John: 我最近在研究大语言模型的提示工程');
    expect(gapsPrompt).toContain('(none yet)');
    // Usage is logged per owner and operation.
    const usage = await engine.call('llmUsage', { ownerId });
    expect(usage.byOperation.map((o) => o.operation).sort()).toEqual(['semantic.gaps', 'semantic.reconstruct']);
  });

  it('a reply that is not the promised JSON fails that episode (kept queued with its error); a dead endpoint stops the run and counts nothing against the episode', async () => {
    const ownerId = newOwner();
    await ingestFirst(ownerId);
    server
      .on(task('semantic-reconstruct'), { content: 'John: …' })
      .on(task('semantic-gaps'), { content: 'I found: John researches prompts.' });
    await engine.call('setLlmSettings', { ...llm, baseUrl: server.url });
    const bad = await engine.call('runDiscovery', { ownerId });
    expect(bad).toMatchObject({ episodes: 0, failed: 1, remaining: 1, stoppedEarly: false });
    expect(bad.errors[0]).toMatch(/semantic.gaps: the model's reply/);
    expect((await engine.call('knowledgeCapacity', { ownerId })).discoveryQueue).toEqual({ waiting: 0, failed: 1 });
    expect((await engine.call('listKnowledge', { ownerId })).facts).toEqual([]);

    server.reset();
    server.on(() => true, { status: 500 });
    const down = await engine.call('runDiscovery', { ownerId });
    expect(down).toMatchObject({ episodes: 0, failed: 0, remaining: 1, stoppedEarly: true });
    expect(down.errors[0]).toMatch(/500|server/i);

    server.reset();
    server.on(task('semantic-reconstruct'), { content: 'John: …' }).on(task('semantic-gaps'), gapsFor('大语言模型提示工程'));
    expect(await engine.call('runDiscovery', { ownerId })).toMatchObject({ episodes: 1, facts: { created: 1 }, remaining: 0 });
  });

  it('keeps the good facts of a reply when one is unusable, and a fact outlives the episode it came from', async () => {
    const ownerId = newOwner();
    const episode = await ingestFirst(ownerId);
    server.on(task('semantic-reconstruct'), { content: 'John: …' }).on(task('semantic-gaps'), {
      json: {
        knowledge_gaps: [
          { key: ':::', value: 'nothing' },
          { value: 'no key at all' },
          { key: 'concept:复杂指令', value: 'John关注复杂指令', messages: [3, 99] },
        ],
        relationships: [{ source: 'concept:复杂指令', target: 'person:nobody', type: 'related' }],
      },
    });
    await engine.call('setLlmSettings', { ...llm, baseUrl: server.url });
    const run = await engine.call('runDiscovery', { ownerId });
    expect(run).toMatchObject({ episodes: 1, facts: { created: 1 }, failed: 0 });
    expect(warnings.join('\n')).toMatch(/skipped a fact .*not a usable key/);
    const k = await engine.call('getKnowledge', { ownerId, key: 'concept:复杂指令' });
    // Message 99 does not exist: only the real one is cited.
    expect(k.sources.map((m) => m.text)).toEqual(['主要是如何让LLM更好地理解复杂指令']);

    await engine.call('deleteEpisode', { ownerId, id: episode.id });
    const after = await engine.call('getKnowledge', { ownerId, key: 'concept:复杂指令' });
    expect(after.fact).toMatchObject({ value: 'John关注复杂指令', discoveryEpisodeId: null });
    expect(after.linkedEpisodes).toEqual([]);
    expect(after.timeline[0]!.episode).toBeNull();
  });

  it('in a long-running host, configuring an LLM starts reading the waiting episodes by itself', async () => {
    const host = await openMemoryEngine({ llm: null, scheduleForgetting: true });
    try {
      const ownerId = newOwner();
      await host.call('ingestConversation', { ownerId, conversation: johnConversations[0]! });
      server.on(task('semantic-reconstruct'), { content: 'John: …' }).on(task('semantic-gaps'), gapsFor('大语言模型提示工程'));
      await host.call('setLlmSettings', { ...llm, baseUrl: server.url });
      // No explicit run asked for the work: an explicit run only waits for the background one and finds nothing left.
      expect(await host.call('runDiscovery', { ownerId })).toMatchObject({ episodes: 0, remaining: 0 });
      expect((await host.call('listKnowledge', { ownerId })).facts.map((f) => f.key)).toEqual(['person:john的研究方向']);
    } finally {
      await host.close();
    }
  });
});
