import { z } from 'zod';
import type { StoredMessage } from '../domain/conversation.js';
import { EpisodeDraft, EpisodeType } from '../domain/episode.js';
import { describeIssues, lenientList } from '../llm/json.js';
import { LlmError, type Llm } from '../llm/llm.js';
import { renderPrompt } from '../llm/prompts.js';
import { describeSpan, formatOffset, joinNames, localDate } from '../text/describe.js';
import { entityKey, predicateKey } from './entity-names.js';
import { localStamp, messageText, shorten } from '../text/message-text.js';
import type { LlmEpisodeConfig } from '../context/llm-episodes-config.js';
import { annotateRelativeTimes, answering, findTimeMentions, timeReference } from '../text/relative-time.js';

/**
 * The LLM episode: a third-person narrative with absolute times, plus a structured payload
 * (importance, emotional valence, event type, entities, relationship triples), validated before it
 * can become an EpisodeDraft.
 */

export const LLM_EPISODE_VERSION = 'llm-1';

/** The knowledge-graph payload of one episode, keyed for linking (core/store/graph.ts stores it). */
export interface GraphEntity {
  name: string;
  key: string;
  type: string;
  role: string | null;
  /** Other names of the same entity, with their keys (the name's own key is not repeated). */
  aliases: { alias: string; key: string }[];
}
export interface GraphTriple {
  subjectKey: string;
  predicate: string;
  objectKey: string;
}
export interface EpisodeGraphPayload {
  entities: GraphEntity[];
  relationships: GraphTriple[];
}

export interface ConversationInfo {
  title: string | null;
  source: string;
}

const lower = (v: unknown) => (typeof v === 'string' ? v.trim().toLowerCase() : v);
const Text = z.string().trim();
const StringList = z.array(z.coerce.string().trim()).transform((xs) => [...new Set(xs.filter(Boolean))]);

const EntityReply = z.object({
  name: Text.min(1),
  type: z.string().trim().toUpperCase().catch('OTHER').default('OTHER'),
  aliases: StringList.catch([]).default([]),
  role: z.string().trim().nullish().catch(null),
});

// Triples as arrays ([s, p, o]) or spelled out; both are common in model output.
const TripleReply = z.union([
  z.tuple([Text.min(1), Text.min(1), Text.min(1)]),
  z
    .object({ subject: Text.min(1), predicate: Text.min(1), object: Text.min(1) })
    .transform((t) => [t.subject, t.predicate, t.object] as [string, string, string]),
]);

/** The reply schema; the years are what "absolute dates" means for this episode, checked in the content. */
export function narrativeReply(years: readonly number[]) {
  return z.object({
    title: Text.min(1).max(200),
    content: Text.min(20, 'the narrative is missing or too short').refine((c) => years.some((y) => c.includes(String(y))), {
      message: `the narrative must state the absolute date of the episode including its year (${years.join(' or ')}), e.g. "On 8 May ${years[0]}" or "${years[0]}年5月8日"`,
    }),
    summary: Text.min(1),
    level: z.coerce.number().int().min(1).max(4).catch(1).default(1),
    // Cosmetic slips (capitals, a made-up type) fall back instead of costing a repair round.
    episodeType: z.preprocess(lower, EpisodeType).catch('conversational').default('conversational'),
    eventType: z.string().trim().max(80).nullish().catch(null),
    entities: lenientList(EntityReply),
    relationships: lenientList(TripleReply),
    topics: StringList.default([]),
    keywords: StringList.default([]),
    keyPoints: StringList.catch([]).default([]),
    emotion: z
      .object({
        sentiment: z.preprocess(lower, z.enum(['positive', 'negative', 'neutral', 'mixed'])).catch('neutral'),
        intensity: z.coerce.number().min(0).max(1).catch(0.5),
        labels: StringList.catch([]).default([]),
      })
      .nullish()
      .catch(null),
    importance: z.coerce.number().min(0, 'importance is a number from 0 to 1').max(1, 'importance is a number from 0 to 1'),
  });
}
export type NarrativeReply = z.infer<ReturnType<typeof narrativeReply>>;

/** The transcript the model sees: local timestamps, speakers, relative dates already resolved in brackets. */
export function narrativeTranscript(messages: readonly StoredMessage[], c: Pick<LlmEpisodeConfig, 'narrativeMessageChars'>): string {
  const texts = messages.map(messageText);
  return messages
    .map((m, i) => {
      const text = annotateRelativeTimes(texts[i]!, m.sentAt, m.utcOffsetMin, answering(messages, texts, i));
      return `${localStamp(m)} ${m.speaker}: ${shorten(text, c.narrativeMessageChars)}`;
    })
    .join('\n');
}

/** Merges entities that share a key, adds the speakers and any triple endpoint the model forgot to list. */
export function graphPayload(reply: Pick<NarrativeReply, 'entities' | 'relationships'>, speakers: readonly string[]): EpisodeGraphPayload {
  const entities: GraphEntity[] = [];
  const byKey = new Map<string, GraphEntity>();
  const add = (name: string, type: string, role: string | null, aliases: readonly string[]): GraphEntity | null => {
    const key = entityKey(name);
    if (!key) return null;
    const keys = [key, ...aliases.map(entityKey)].filter(Boolean);
    let e = keys.map((k) => byKey.get(k)).find(Boolean);
    if (!e) {
      e = { name: name.trim(), key, type, role, aliases: [] };
      entities.push(e);
    } else if (e.type === 'OTHER' && type !== 'OTHER') {
      e.type = type;
    }
    for (const [i, k] of keys.entries()) {
      if (k !== e.key && !e.aliases.some((a) => a.key === k))
        e.aliases.push({ alias: i === 0 ? name.trim() : aliases[i - 1]!.trim(), key: k });
      if (!byKey.has(k)) byKey.set(k, e);
    }
    e.role ??= role;
    return e;
  };
  for (const e of reply.entities) add(e.name, e.type || 'OTHER', e.role ?? null, e.aliases);
  for (const s of speakers) add(s, 'PERSON', 'speaker', []);
  const relationships: GraphTriple[] = [];
  const seen = new Set<string>();
  for (const [s, p, o] of reply.relationships) {
    const subject = byKey.get(entityKey(s)) ?? add(s, 'OTHER', null, []);
    const object = byKey.get(entityKey(o)) ?? add(o, 'OTHER', null, []);
    const predicate = predicateKey(p);
    if (!subject || !object || !predicate) continue;
    const id = `${subject.key}\u0000${predicate}\u0000${object.key}`;
    if (seen.has(id)) continue;
    seen.add(id);
    relationships.push({ subjectKey: subject.key, predicate, objectKey: object.key });
  }
  return { entities, relationships };
}

function years(messages: readonly StoredMessage[]): number[] {
  const first = messages[0]!;
  const last = messages.at(-1)!;
  return [
    ...new Set([localDate(first.sentAt, first.utcOffsetMin), localDate(last.sentAt, last.utcOffsetMin)].map((d) => Number(d.slice(0, 4)))),
  ];
}

const valence = { positive: 1, negative: -1, neutral: 0, mixed: 0 } as const;

/** Maps a validated reply onto the episode the store keeps. */
export function draftFromReply(
  reply: NarrativeReply,
  messages: readonly StoredMessage[],
  model: string,
): { draft: EpisodeDraft; graph: EpisodeGraphPayload } {
  const first = messages[0]!;
  const last = messages.at(-1)!;
  const speakers = [...new Set(messages.map((m) => m.speaker))];
  const graph = graphPayload(reply, speakers);
  const emotion = reply.emotion ?? { sentiment: 'neutral' as const, intensity: 0, labels: [] };
  const v = valence[emotion.sentiment] * emotion.intensity;
  const emotions = (emotion.labels.length ? emotion.labels : reply.emotion ? [emotion.sentiment] : []).map((label) => ({
    label,
    valence: v,
    intensity: emotion.intensity,
  }));
  const names = new Map(graph.entities.map((e) => [e.key, e.name]));
  const texts = messages.map(messageText);
  const timeReferences = messages.flatMap((m, i) =>
    findTimeMentions(texts[i]!, m.sentAt, m.utcOffsetMin, answering(messages, texts, i)).map(timeReference),
  );
  const draft = EpisodeDraft.parse({
    episodeType: reply.episodeType,
    level: reply.level,
    title: reply.title,
    content: reply.content,
    summary: reply.summary,
    temporal: { start: first.sentAt, end: last.sentAt, utcOffsetMin: first.utcOffsetMin },
    metadata: {
      entities: graph.entities.map((e) => e.name),
      topics: reply.topics,
      emotions,
      keyPoints: reply.keyPoints,
      timeReferences,
      participants: speakers,
      messageCount: messages.length,
      // Payload fields that have no column of their own.
      custom: { eventType: reply.eventType ?? null, emotionalValence: { sentiment: emotion.sentiment, intensity: emotion.intensity } },
    },
    structuredData: {
      // The knowledge-graph payload by name; the stable entity ids live in the graph tables.
      knowledgeGraph: {
        eventType: reply.eventType ?? null,
        entities: graph.entities.map((e) => ({ name: e.name, type: e.type, role: e.role, aliases: e.aliases.map((a) => a.alias) })),
        relationships: graph.relationships.map((r) => [names.get(r.subjectKey), r.predicate, names.get(r.objectKey)]),
      },
      builtWith: { model },
    },
    keywords: reply.keywords,
    importance: reply.importance,
    builder: 'llm',
    processingStatus: 'ready',
    processingVersion: LLM_EPISODE_VERSION,
  });
  return { draft, graph };
}

/** One episode from the LLM; throws an LlmError when the endpoint or the reply fails. */
export async function llmEpisode(
  llm: Llm,
  ownerId: string,
  messages: readonly StoredMessage[],
  conversation: ConversationInfo | null,
  c: Pick<LlmEpisodeConfig, 'narrativeMessageChars'>,
): Promise<{ draft: EpisodeDraft; graph: EpisodeGraphPayload }> {
  const first = messages[0]!;
  const last = messages.at(-1)!;
  const speakers = [...new Set(messages.map((m) => m.speaker))];
  const prompt = renderPrompt('episode-narrative', {
    conversation: conversation ? `${conversation.title ?? '(untitled)'} (${conversation.source})` : '(unknown)',
    participants: joinNames(speakers),
    span: describeSpan(first.sentAt, last.sentAt, first.utcOffsetMin),
    timezone: formatOffset(first.utcOffsetMin),
    messages: narrativeTranscript(messages, c),
  });
  const r = await llm.complete({
    operation: 'episode.narrative',
    ownerId,
    messages: [
      { role: 'system', content: 'You write episodic memories for a personal memory app. You answer with strict JSON only.' },
      { role: 'user', content: prompt },
    ],
    json: narrativeReply(years(messages)),
  });
  try {
    return draftFromReply(r.value, messages, r.model);
  } catch (e) {
    // A reply that passed validation but still cannot make an episode is the model's failure, not ours:
    // it falls back like any other bad reply instead of failing the import.
    if (!(e instanceof z.ZodError)) throw e;
    throw new LlmError('LLM_BAD_REPLY', `episode.narrative: the reply cannot make an episode: ${describeIssues(e)}`, {
      operation: 'episode.narrative',
    });
  }
}
