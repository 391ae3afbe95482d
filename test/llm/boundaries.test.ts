import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { StoredMessage } from '../../core/domain/conversation.js';
import { llmSegments, newSession } from '../../core/episodes/boundaries-llm.js';
import { LlmEpisodeConfig } from '../../core/context/llm-episodes-config.js';
import { createOpenAiLlm } from '../../core/llm/client.js';
import { startLlmServer, type LlmServer, type RecordedRequest } from '../helpers/llm-server.js';

let server: LlmServer;
beforeAll(async () => {
  server = await startLlmServer();
});
afterAll(async () => {
  await server.close();
});
beforeEach(() => server.reset());

/** `n` messages a minute apart; message i talks about topic `topicOf(i)`. */
function conversation(n: number, topicOf: (i: number) => number): StoredMessage[] {
  const start = Date.parse('2024-03-01T08:00:00Z');
  return Array.from({ length: n }, (_, i) => ({
    id: `m${i}`,
    conversationId: 'c',
    externalId: null,
    seq: i,
    speaker: i % 2 ? 'Bob' : 'Ann',
    role: 'other' as const,
    text: `topic-${topicOf(i)} message ${i}`,
    sentAt: new Date(start + i * 60_000),
    utcOffsetMin: 60,
    attachments: [],
    episodeId: null,
  }));
}

/** A model that is always right: a boundary wherever the topic in the text changes. */
function oracle(req: RecordedRequest) {
  const topics = [...req.prompt.matchAll(/^\[(\d+)\] .*? topic-(\d+) /gm)].map((m) => Number(m[2]));
  const boundaries = topics.flatMap((t, i) => (i > 0 && t !== topics[i - 1] ? [i] : []));
  return { json: { boundaries } };
}

const llm = () => createOpenAiLlm({ baseUrl: server.url, model: 'scripted-model', timeoutMs: 10_000, backoffMs: 1, maxRetries: 1 });
const config = LlmEpisodeConfig.parse({ boundaryWindow: 40 });

describe('LLM boundary detection', () => {
  it('asks for a window of messages at a time, not one request per message, and finds every topic change', async () => {
    server.on(() => true, oracle);
    const messages = conversation(1000, (i) => Math.floor(i / 13));
    const session = newSession();
    const spans = await llmSegments(llm(), 'o', messages, config, session);
    expect(spans.every((s) => s.byLlm)).toBe(true);
    expect(spans.map((s) => s.messages.length)).toEqual([...Array<number>(76).fill(13), 12]);
    // An episode still open at the end of a window is shown again at the head of the next one.
    expect(server.chats().length).toBeLessThan(1000 / 20);
    expect(session.calls).toBe(server.chats().length);
    const first = server.chats()[1]!.prompt;
    expect(first).toMatch(/Messages \[0\] to \[\d+\] were already judged to form one episode/);
    expect(first).toMatch(/\[1\] Fri 2024-03-01 09:40 \(\+1 min\) Ann: topic-3 message 40/);
  });

  it('closes an episode that fills a whole window without a boundary', async () => {
    server.on(() => true, { json: { boundaries: [] } });
    const spans = await llmSegments(
      llm(),
      'o',
      conversation(100, () => 1),
      config,
      newSession(),
    );
    expect(spans.map((s) => s.messages.length)).toEqual([40, 40, 20]);
  });

  it('cuts at long silences without asking, and ignores indexes outside the window after one repair', async () => {
    server.on(() => true, { json: { boundaries: [99] } }, 1).on(() => true, { json: { boundaries: [1] } });
    const messages = conversation(4, () => 1);
    messages[2]!.sentAt = new Date(messages[2]!.sentAt.getTime() + 3 * 86_400_000);
    messages[3]!.sentAt = new Date(messages[2]!.sentAt.getTime() + 60_000);
    const spans = await llmSegments(llm(), 'o', messages, config, newSession());
    expect(spans.map((s) => s.messages.map((m) => m.id))).toEqual([['m0'], ['m1'], ['m2'], ['m3']]);
    expect(server.chats()[1]!.prompt).toMatch(/indexes 99 are outside 1\.\.1/);
  });

  it('hands a window it could not get boundaries for to the heuristic, and stops asking once the endpoint is down', async () => {
    server.on(() => true, { status: 503 });
    const session = newSession();
    const spans = await llmSegments(
      llm(),
      'o',
      conversation(120, (i) => Math.floor(i / 10)),
      config,
      session,
    );
    expect(spans.map((s) => [s.byLlm, s.messages.length])).toEqual([
      [false, 40],
      [false, 80],
    ]);
    expect(session.down?.code).toBe('LLM_SERVER');
    expect(server.chats()).toHaveLength(2); // one request and its one retry
  });
});
