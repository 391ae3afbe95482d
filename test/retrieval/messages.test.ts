import { describe, expect, it } from 'vitest';
import { PackConfig } from '../../core/context/retrieval-config.js';
import type { StoredMessage } from '../../core/domain/conversation.js';
import { messageDocs, queryTerms, scoreDocs, type MessageScoring } from '../../core/retrieval/messages.js';
import { rankMessages, stageFrom, type FirstStage, type TermStats } from '../../core/retrieval/pack.js';
import type { EpisodeHeader } from '../../core/store/episodes.js';

const at = new Date('2024-03-01T10:00:00Z');

function message(seq: number, text: string, episodeId: string): StoredMessage {
  return {
    id: `m${seq}`,
    conversationId: 'c',
    externalId: null,
    seq,
    speaker: seq % 2 ? 'Ann' : 'Ben',
    role: 'user',
    text,
    sentAt: new Date(at.getTime() + seq * 60_000),
    utcOffsetMin: 0,
    attachments: [],
    episodeId,
  };
}

function episode(id: string): EpisodeHeader {
  return {
    id,
    conversationId: 'c',
    title: 'a weekend',
    summary: 'Ann and Ben went hiking.',
    temporal: { start: at, end: at, utcOffsetMin: 0 },
    keywords: [],
    entities: [],
    participants: ['Ann', 'Ben'],
  };
}

const messages = [
  message(1, 'Where did you go hiking?', 'e1'),
  message(2, 'Up north, all of Saturday', 'e1'),
  message(3, 'The glacier was freezing', 'e1'),
  message(4, 'Anyway, the tax forms are due', 'e2'),
];
const episodes = new Map([episode('e1'), episode('e2')].map((e) => [e.id, e]));
const stats = { docCount: 100, df: new Map([...queryTerms('hiking glacier tax')].map(([t]) => [t, 2])) };
const scoring = (near: number): MessageScoring => ({ k1: 1.2, b: 0.75, fields: { text: 1, speaker: 0, context: 0, near } });
const scoreOf = (near: number, id: string, query: string) =>
  scoreDocs(messageDocs(messages, episodes), queryTerms(query), stats, scoring(near)).find((s) => s.doc.message.id === id)!;

describe('message scoring', () => {
  it('lets a turn match on the words of the turns just before and after it, within its episode', () => {
    const reply = scoreOf(0.4, 'm2', 'hiking glacier');
    // Neither word is in its own text: "hiking" comes from the turn before, "glacier" from the one after.
    expect(reply.matched.sort()).toEqual(['glacier', 'hike']);
    expect(reply.score).toBeGreaterThan(scoreOf(0.4, 'm2', 'hiking').score);
    expect(scoreOf(0, 'm2', 'hiking glacier').score).toBe(0);
    // The next turn belongs to another episode: it lends nothing.
    expect(scoreOf(0.4, 'm3', 'tax').score).toBe(0);
    expect(scoreOf(0.4, 'm4', 'glacier').score).toBe(0);
  });

  it('weighs a neighbouring turn below the message’s own words', () => {
    expect(scoreOf(0.4, 'm1', 'hiking').score).toBeGreaterThan(scoreOf(0.4, 'm2', 'hiking').score);
  });

  it('counts both neighbours as one field, whose length is theirs together', () => {
    const [doc] = messageDocs(messages, episodes).filter((d) => d.message.id === 'm2');
    // Terms: "Where did you go hiking?" → go, hike; "Up north, all of Saturday" → north, saturdai;
    // "The glacier was freezing" → glacier, freez.
    expect(doc!.lengths[0]).toBe(2);
    expect(doc!.lengths[3]).toBe(4);
  });

  it('scores a message the same however many words of the query it lacks, its matches in the query’s order', () => {
    // A query longer than everything a message and its neighbours hold (a Chinese query's one-character
    // words bring dozens of terms) is looked up from the message's side: the result must not change.
    const filler = Array.from(
      { length: 60 },
      (_, i) => `word${String.fromCharCode(97 + (i % 26))}${String.fromCharCode(97 + Math.floor(i / 26))}`,
    );
    const long = `glacier ${filler.slice(0, 30).join(' ')} tax hiking ${filler.slice(30).join(' ')}`;
    const short = 'glacier tax hiking';
    const everyTerm = { docCount: 100, df: new Map([...queryTerms(long)].map(([t]) => [t, 2])) };
    const docs = messageDocs(messages, episodes);
    const byLong = scoreDocs(docs, queryTerms(long), everyTerm, scoring(0.4));
    const byShort = scoreDocs(docs, queryTerms(short), everyTerm, scoring(0.4));
    expect(queryTerms(long).size).toBeGreaterThan(60);
    expect(byLong.map((s) => [s.doc.message.id, s.score, s.matched])).toEqual(byShort.map((s) => [s.doc.message.id, s.score, s.matched]));
    expect(byLong.find((s) => s.doc.message.id === 'm2')!.matched).toEqual(['glacier', 'hike']);
    expect(byLong.find((s) => s.doc.message.id === 'm4')!.matched).toEqual(['tax']);
  });
});

describe('ranking messages for the evidence packer', () => {
  // No message says a word of it: only how near each episode is tells them apart.
  const query = 'What activities are fun?';
  const noStats: TermStats = async () => ({ docCount: 100, df: new Map() });
  /** Both episodes tied in the fused ranking; the vector half found e1 nearer in meaning, and never found e3. */
  const first: FirstStage = {
    hits: [
      { id: 'e2', score: 0.5, similarity: 0.2 },
      { id: 'e1', score: 0.5, similarity: 0.8 },
      { id: 'e3', score: 0.5, similarity: null },
    ],
    anchors: [],
    modeUsed: 'hybrid',
    warnings: [],
    termStats: null,
  };
  const stage = stageFrom(first, messageDocs(messages, episodes));

  it('weighs each message by how near its episode is in meaning when no message says the query’s words', async () => {
    // Scaled over the candidates; an episode the vector half did not find counts as the farthest.
    expect(Object.fromEntries(stage.episodeMeaning)).toEqual({ e1: 1, e2: 0, e3: 0 });
    const ranked = await rankMessages(stage, query, noStats, PackConfig.parse({}));
    // The nearer episode's turns first (the one that only asks below the ones that tell), then the farther.
    expect(ranked.map((r) => r.doc.message.id)).toEqual(['m2', 'm3', 'm1', 'm4']);
    // Without that weight only time and asking tell them apart.
    const blind = await rankMessages(stage, query, noStats, PackConfig.parse({ episodeMeaning: 0 }));
    expect(blind.map((r) => r.doc.message.id)).toEqual(['m2', 'm3', 'm4', 'm1']);
  });
});
