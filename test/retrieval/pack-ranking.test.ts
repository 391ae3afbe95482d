import { describe, expect, it } from 'vitest';
import { PackConfig } from '../../core/context/retrieval-config.js';
import type { StoredMessage } from '../../core/domain/conversation.js';
import { messageDocs } from '../../core/retrieval/messages.js';
import { rankMessages, stageFrom, type FirstStage, type TermStats } from '../../core/retrieval/pack.js';
import type { EpisodeHeader } from '../../core/store/episodes.js';

const at = new Date('2024-03-01T10:00:00Z');

function message(seq: number, text: string, episodeId: string): StoredMessage {
  return {
    id: `m${seq}`,
    conversationId: 'c',
    externalId: null,
    seq,
    speaker: 'Ann',
    role: 'user',
    text,
    // Each episode a day apart: no neighbouring turn lends its match across them.
    sentAt: new Date(at.getTime() + seq * 86_400_000),
    utcOffsetMin: 0,
    attachments: [],
    episodeId,
  };
}

function episode(id: string): EpisodeHeader {
  return {
    id,
    conversationId: 'c',
    title: 'a chat',
    temporal: { start: at, end: at, utcOffsetMin: 0 },
    keywords: [],
    entities: [],
    participants: ['Ann'],
  };
}

// None of them says a word of the question but the name of the one who speaks.
const messages = [
  message(1, 'Bye, talk soon!', 'far'),
  message(2, 'We went camping by the lake', 'near'),
  message(3, 'Haha, same here', 'unfound'),
];
const episodes = new Map(['far', 'near', 'unfound'].map((id) => [id, episode(id)]));
const noStats: TermStats = async () => ({ docCount: 100, df: new Map() });
const query = 'What activities does Ann enjoy?';

/** The three episodes tied in the fused ranking; the vector half found two of them, one nearer in meaning. */
const first: FirstStage = {
  hits: [
    { id: 'far', score: 0.5, similarity: 0.2 },
    { id: 'near', score: 0.5, similarity: 0.8 },
    { id: 'unfound', score: 0.5, similarity: null },
  ],
  anchors: [],
  modeUsed: 'hybrid',
  warnings: [],
};

describe('ranking messages for the evidence packer', () => {
  it('puts the turn of the episode nearest the question in meaning first when no turn says its words', async () => {
    const stage = stageFrom(first, messageDocs(messages, episodes));
    // Scaled over the candidates; an episode the vector half did not find counts as the farthest.
    expect(Object.fromEntries(stage.episodeMeaning)).toEqual({ far: 0, near: 1, unfound: 0 });
    const ranked = await rankMessages(stage, query, noStats, PackConfig.parse({}));
    expect(ranked.map((r) => r.doc.message.id)).toEqual(['m2', 'm1', 'm3']);
    // Without that weight the tie is broken by time alone.
    const blind = await rankMessages(stage, query, noStats, PackConfig.parse({ episodeMeaning: 0 }));
    expect(blind.map((r) => r.doc.message.id)).toEqual(['m1', 'm2', 'm3']);
  });
});
