import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Engine } from '../../core/engine/open-engine.js';
import { openEmbedder } from '../../core/embed/transformers-embedder.js';
import { tinyModelOptions } from '../fixtures/tiny-model/index.js';
import { newOwner, openMemoryEngine } from '../helpers/engine.js';
import { startLlmServer, type LlmServer } from '../helpers/llm-server.js';
import { task } from '../llm/script.js';
import { scriptJohn, johnConversations } from './script.js';

let server: LlmServer;
let engine: Engine;
const warnings: string[] = [];

beforeAll(async () => {
  server = await startLlmServer();
  scriptJohn(server);
  engine = await openMemoryEngine({
    embedder: await openEmbedder(tinyModelOptions()),
    llm: { model: 'scripted-model', baseUrl: server.url, timeoutMs: 10_000, backoffMs: 1, maxRetries: 1 },
    warn: (m) => warnings.push(m),
  });
});
afterAll(async () => {
  await engine.close();
  await server.close();
});

describe("knowledge discovery: John's research direction", () => {
  it('two conversations three months apart make one fact at version 2, its timeline showing both values and both episodes, linked both ways', async () => {
    const ownerId = newOwner('john');
    const [first, second] = johnConversations;
    await engine.call('ingestConversation', { ownerId, source: 'api', conversation: first! });
    await engine.call('ingestConversation', { ownerId, source: 'api', conversation: second! });
    // Ingest kicked discovery in the background; an explicit run waits for it and finds the queue empty.
    const run = await engine.call('runDiscovery', { ownerId });
    expect(run).toMatchObject({ failed: 0, remaining: 0, stoppedEarly: false, skipped: null });

    const episodes = (await engine.call('listEpisodes', { ownerId })).episodes.sort((a, b) => a.start.localeCompare(b.start));
    expect(episodes).toHaveLength(2);
    const [ep1, ep2] = episodes;

    const { facts } = await engine.call('listKnowledge', { ownerId });
    const research = facts.filter((f) => f.label === 'John的研究方向');
    expect(research).toHaveLength(1);
    expect(research[0]).toMatchObject({
      key: 'person:john的研究方向',
      entityType: 'person',
      version: 2,
      value: 'AI Agent行为规划',
      discoveryEpisodeId: ep1!.id,
      discoveryMethod: 'diff_analysis',
    });

    const k = await engine.call('getKnowledge', { ownerId, key: 'person:John的研究方向' });
    expect(k.timeline.map((v) => [v.version, v.value, v.episode?.id, v.link])).toEqual([
      [1, '大语言模型提示工程', ep1!.id, null],
      [2, 'AI Agent行为规划', ep2!.id, 'updates'],
    ]);
    expect(k.timeline[0]!.episode!.start).toBe('2024-01-15T02:00:00.000Z');
    expect(k.timeline[1]!.createdAt > k.timeline[0]!.createdAt).toBe(true);
    // Confidence averaged on evolution (0.9 then 0.8).
    expect(k.fact.confidence).toBeCloseTo(0.85, 5);
    expect(k.discoveryEpisode?.id).toBe(ep1!.id);
    expect(k.linkedEpisodes.map((e) => e.id)).toEqual([ep1!.id]);
    expect(k.evolutionEpisodes.map((e) => e.id)).toEqual([ep2!.id]);
    // Provenance: the messages the model cited, from both conversations.
    expect(k.sources.map((m) => m.text)).toEqual([
      '我最近在研究大语言模型的提示工程',
      '主要是如何让LLM更好地理解复杂指令',
      '我现在转向AI Agent的行为规划了',
    ]);

    // Episode → fact: both episodes point back at the node.
    for (const ep of [ep1!, ep2!]) {
      const detail = await engine.call('getEpisode', { ownerId, id: ep.id });
      expect(detail.episode.semanticNodeIds).toContain(k.fact.id);
      const linked = await engine.call('episodeKnowledge', { ownerId, id: ep.id });
      expect(linked.facts.map((f) => f.fact.key)).toContain('person:john的研究方向');
    }
    expect((await engine.call('episodeKnowledge', { ownerId, id: ep2!.id })).facts.find((f) => f.fact.id === k.fact.id)!.roles).toEqual([
      'evolution',
    ]);

    // Every past value stays reachable by version.
    const v1 = await engine.call('getKnowledgeVersion', { ownerId, key: k.fact.id, version: 1 });
    expect(v1.version.value).toBe('大语言模型提示工程');

    // Co-discovered facts are related (relationship strength > 0.3); typed relations the model proposed too.
    const related = await engine.call('relatedKnowledge', { ownerId, key: 'person:john的研究方向' });
    expect(related.direct.map((r) => r.fact.key)).toEqual(expect.arrayContaining(['concept:复杂指令理解', 'concept:agent决策机制']));
    expect(related.direct.find((r) => r.fact.key === 'concept:agent决策机制')!.type).toBe('part_of');
    // Learnt together: the episode is the reason, shown in the reader's language.
    expect(related.direct.find((r) => r.fact.key === 'concept:复杂指令理解')).toMatchObject({
      type: 'related',
      description: '',
      discoveryEpisode: { id: ep1!.id },
    });

    // "What is John researching now?" finds the current value among facts, and the conversations behind it.
    const now = await engine.call('enhancedQuery', { ownerId, query: 'John的研究方向', quality: 'comprehensive' });
    expect(now.primary[0]).toMatchObject({ kind: 'semantic', key: 'person:john的研究方向', summary: 'AI Agent行为规划', version: 2 });
    expect(now.support.find((s) => s.factId === k.fact.id)!.evolutionEpisodes.map((e) => e.id)).toEqual([ep2!.id]);
    expect(now.secondary.every((x) => x.kind === 'episode')).toBe(true);

    // The second discovery saw the first fact as known context, which is how it reused the key.
    const secondGaps = server.chats().filter(task('semantic-gaps', 'AI Agent的行为规划'));
    expect(secondGaps).toHaveLength(1);
    expect(secondGaps[0]!.prompt).toContain('person:john的研究方向 = 大语言模型提示工程');
    expect(warnings).toEqual([]);
  });
  it('loadContext shows the fact with when its value was said, and does not quote those messages again under it', async () => {
    const ownerId = newOwner('john-context');
    for (const conversation of johnConversations) await engine.call('ingestConversation', { ownerId, source: 'api', conversation });
    await engine.call('runDiscovery', { ownerId });
    const k = await engine.call('getKnowledge', { ownerId, key: 'person:John的研究方向' });
    const current = new Set(k.timeline.at(-1)!.sourceMessageIds);
    const said = k.sources.filter((m) => current.has(m.id));
    expect(said.map((m) => m.text)).toEqual(['我现在转向AI Agent的行为规划了']);

    const out = await engine.call('loadContext', {
      ownerId,
      query: 'John 现在研究 AI Agent 行为规划吗',
      now: '2024-05-01T10:00:00+08:00',
      budgetTokens: 600,
    });
    expect(out.sections.related.some((r) => r.kind === 'fact' && r.key === 'person:john的研究方向')).toBe(true);
    // When the current value was said (version 1's messages of January are not its sources).
    expect(out.markdown).toContain('- Fact `person:john的研究方向` (v2, said Saturday, 20 April 2024, 14:30): ');
    // The evidence under it quotes the rest of that talk, not the message the fact already says.
    const quoted = out.sections.related.flatMap((r) => (r.kind === 'episode' ? r.messages.map((m) => m.text) : []));
    expect(quoted).toContain('从LLM转向Agent了？');
    expect(quoted).not.toContain('我现在转向AI Agent的行为规划了');
  });
  it('loadContext as of a past moment shows each fact as it was known then, and none not known yet', async () => {
    const ownerId = newOwner('john-replay');
    for (const conversation of johnConversations) await engine.call('ingestConversation', { ownerId, source: 'api', conversation });
    await engine.call('runDiscovery', { ownerId });
    const query = 'John 的研究方向是什么';
    const load = (now?: string) => engine.call('loadContext', { ownerId, query, budgetTokens: 600, ...(now ? { now } : {}) });
    const research = (out: Awaited<ReturnType<typeof load>>) =>
      out.sections.related.flatMap((r) => (r.kind === 'fact' && r.key === 'person:john的研究方向' ? [[r.version, r.value]] : []));

    // Between the two talks: version 1's value, said in January, under Related and in the summary alike.
    const march = await load('2024-03-01T10:00:00+08:00');
    expect(research(march)).toEqual([[1, '大语言模型提示工程']]);
    expect(march.markdown).toContain('(v1, said Monday, 15 January 2024, 10:02): John的研究方向: 大语言模型提示工程');
    expect(march.markdown).not.toContain('AI Agent行为规划');
    const summary = await engine.call('summarizeKnowledge', { ownerId, asOf: '2024-03-01T10:00:00+08:00' });
    expect(summary.summary).toContain('John的研究方向: 大语言模型提示工程');
    expect(summary.summary).not.toContain('AI Agent行为规划');

    // Before John said anything about it, there is no such fact.
    const before = await load('2024-01-10T10:00:00+08:00');
    expect(before.sections.related.filter((r) => r.kind === 'fact')).toEqual([]);
    expect(before.markdown).not.toContain('研究方向');
    expect((await engine.call('summarizeKnowledge', { ownerId, asOf: '2024-01-10' })).summary).not.toContain('研究方向');

    // Today: the current value.
    expect(research(await load())).toEqual([[2, 'AI Agent行为规划']]);
  });
});
