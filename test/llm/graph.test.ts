import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Engine } from '../../core/engine/open-engine.js';
import { graphPayload } from '../../core/episodes/llm-builder.js';
import { newOwner, openMemoryEngine } from '../helpers/engine.js';
import { startLlmServer, type LlmServer } from '../helpers/llm-server.js';
import { task } from './script.js';

let engine: Engine;
let server: LlmServer;
beforeAll(async () => {
  server = await startLlmServer();
  engine = await openMemoryEngine({
    llm: { baseUrl: server.url, model: 'scripted-model', timeoutMs: 10_000, backoffMs: 1, maxRetries: 1 },
  });
});
afterAll(async () => {
  await engine.close();
  await server.close();
});

async function manualEpisode(ownerId: string, title: string): Promise<string> {
  const e = await engine.call('createEpisode', {
    ownerId,
    episode: { title, content: `${title}.`, summary: '', start: '2024-01-01T10:00:00Z' },
  });
  return e.id;
}

/** Writes a graph payload for an episode, as the builders do, in one transaction. */
async function link(
  ownerId: string,
  episodeId: string,
  entities: { name: string; type?: string; aliases?: string[] }[],
  relationships: [string, string, string][] = [],
) {
  const g = graphPayload({ entities: entities.map((e) => ({ type: 'OTHER', aliases: [], role: null, ...e })), relationships }, []);
  await engine.context.store.transaction((r) => r.graph.setEpisodeGraph(ownerId, episodeId, g, new Date()));
  return engine.call('episodeGraph', { ownerId, id: episodeId });
}

describe('the knowledge graph', () => {
  it('links the same person in two chats to one entity, by name or by an alias reported earlier', async () => {
    const ownerId = newOwner();
    const a = await link(ownerId, await manualEpisode(ownerId, 'Chat one'), [
      { name: 'Zhang Wei', type: 'PERSON', aliases: ['张伟', 'Wei'] },
      { name: 'Project Phoenix' },
    ]);
    const b = await link(
      ownerId,
      await manualEpisode(ownerId, 'Chat two'),
      [{ name: '张伟' }, { name: 'project  phoenix', type: 'PROJECT' }],
      [['张伟', 'leads', 'project phoenix']],
    );
    const zhang = a.entities.find((e) => e.name === 'Zhang Wei')!;
    expect(b.entities.find((e) => e.id === zhang.id)).toMatchObject({ name: 'Zhang Wei', type: 'PERSON', aliases: ['Wei', '张伟'] });
    // A later, more specific type replaces OTHER.
    expect(b.entities.find((e) => e.name === 'Project Phoenix')).toMatchObject({ type: 'PROJECT' });
    expect(b.relationships.map((r) => [r.subject.id, r.predicate, r.object.name])).toEqual([[zhang.id, 'LEADS', 'Project Phoenix']]);
    expect((await engine.call('listEntities', { ownerId })).entities.map((e) => [e.name, e.episodes])).toEqual([
      ['Project Phoenix', 2],
      ['Zhang Wei', 2],
    ]);
  });

  it('keeps owners apart: the same name is a different entity for another owner', async () => {
    const one = newOwner();
    const two = newOwner();
    const a = await link(one, await manualEpisode(one, 'x'), [{ name: 'Emma', type: 'PERSON' }]);
    const b = await link(two, await manualEpisode(two, 'y'), [{ name: 'Emma', type: 'PERSON' }]);
    expect(a.entities[0]!.id).not.toBe(b.entities[0]!.id);
    expect((await engine.call('listEntities', { ownerId: two })).entities).toHaveLength(1);
    await expect(engine.call('episodeGraph', { ownerId: two, id: a.episodeId })).rejects.toThrow(/no episode/);
  });

  it('relinking an episode keeps the ids of entities it still mentions and drops the rest', async () => {
    const ownerId = newOwner();
    const id = await manualEpisode(ownerId, 'z');
    const first = await link(ownerId, id, [{ name: 'Emma' }, { name: 'Lisbon' }], [['Emma', 'MOVES_TO', 'Lisbon']]);
    const again = await link(ownerId, id, [{ name: 'emma' }, { name: 'Porto' }], [['Emma', 'VISITS', 'Porto']]);
    expect(again.entities.find((e) => e.name === 'Emma')!.id).toBe(first.entities.find((e) => e.name === 'Emma')!.id);
    expect(again.relationships.map((r) => r.predicate)).toEqual(['VISITS']);
    expect((await engine.call('listEntities', { ownerId })).entities.map((e) => e.name).sort()).toEqual(['Emma', 'Porto']);
  });

  it('an import through the LLM links a person across two conversations', async () => {
    const ownerId = newOwner();
    const reply = (content: string, entities: object[]) => ({ json: { title: 'T', content, summary: 'S', importance: 0.5, entities } });
    server
      .on(task('episode-boundaries'), { json: { boundaries: [] } })
      .on(
        task('episode-narrative', 'lunch'),
        reply('On 2 March 2024 Ann had lunch with Li Lei.', [{ name: 'Li Lei', type: 'PERSON', aliases: ['李雷'] }]),
      )
      .on(task('episode-narrative', '电影'), reply('2024年3月3日，Ann 和李雷去看了电影。', [{ name: '李雷', type: 'PERSON' }]));
    const msg = (speaker: string, text: string, timestamp: string) => ({ speaker, text, timestamp });
    await engine.call('ingestConversation', {
      ownerId,
      conversation: {
        id: 'work',
        messages: [
          msg('Ann', 'lunch with Li Lei today', '2024-03-02T12:00:00+08:00'),
          msg('Li Lei', 'see you at lunch', '2024-03-02T12:01:00+08:00'),
        ],
      },
    });
    await engine.call('ingestConversation', {
      ownerId,
      conversation: {
        id: 'wechat',
        messages: [msg('Ann', '今晚看电影吗？', '2024-03-03T18:00:00+08:00'), msg('李雷', '好啊', '2024-03-03T18:01:00+08:00')],
      },
    });
    const people = (await engine.call('listEntities', { ownerId, query: '李' })).entities;
    expect(people).toEqual([expect.objectContaining({ name: 'Li Lei', episodes: 2 })]);
  });
});
