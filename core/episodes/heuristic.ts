import type { StoredMessage } from '../domain/conversation.js';
import type { EpisodeDraft } from '../domain/episode.js';
import { CJK_CHARS, tokenize } from '../text/tokenize.js';
import { describeSpan, describeSpanZh, joinNames, withArticle } from '../text/describe.js';
import { properNouns, QUIET_WEIGHT, readTopics, topicsFrom, type Idf, type TextSpan, type TopicReading } from '../text/keywords.js';
import { messageText } from '../text/message-text.js';
import { sentences } from '../text/sentences.js';
import { SECRET_PLACEHOLDERS } from '../privacy/redact.js';
import { answering, findTimeMentions, timeReference, withTimeNotes } from '../text/relative-time.js';

/**
 * Which rules told an episode (its title, summary, keywords, the dates its time words name): raised
 * whenever they change, so the episodes older rules told, and nobody edited since, are told again
 * from their messages (core/episodes/retell.ts). Their boundaries stay.
 */
export const HEURISTIC_GENERATION = 11;
export const HEURISTIC_VERSION = `heuristic-${HEURISTIC_GENERATION}`;

const LETTER = /\p{L}/gu;

/** A file's name with an extension phones and computers give what people share. */
const FILE_NAME =
  /(?<![\p{L}\d])([\p{L}\d]+(?:[_.-][\p{L}\d]+)*)\.(?:jpe?g|png|gif|heic|webp|bmp|mp4|mov|avi|mkv|webm|mp3|m4a|aac|opus|ogg|wav|pdf|docx?|xlsx?|pptx?|txt|csv|zip|rar|7z)(?![\p{L}\d])/giu;

/** A web address: its host and path are where something is, not what the talk is about. */
const WEB_ADDRESS = /\b(?:https?:\/\/|www\.)[^\s<>"'）)\]】]+/giu;

/** A Chinese (or Japanese, Korean) conversation gets a title in its own script and punctuation. */
function isMostlyCjk(text: string): boolean {
  const letters = text.match(LETTER)?.length ?? 0;
  return letters > 0 && (text.match(CJK_CHARS)?.length ?? 0) / letters > 0.3;
}

function clipped(sentence: string, max: number): string {
  const s = sentence.trim().replace(/\s+/g, ' ');
  return s.length > max ? `${s.slice(0, max - 1).trimEnd()}…` : s;
}

function firstSentence(text: string, max: number): string {
  return clipped(sentences(text)[0] ?? text, max);
}

/**
 * The sentence of a message that says most of the episode's keywords (the first of equals): a chat
 * message often opens with a greeting or a reaction ("Aw, that's sweet, Mel!") and says its news after.
 */
function keySentence(text: string, keywords: ReadonlySet<string>, max: number): string {
  const all = sentences(text);
  let best = 0;
  let most = -1;
  for (const [i, s] of all.entries()) {
    const n = tokenize(s).filter((t) => keywords.has(t)).length;
    if (n > most) [best, most] = [i, n];
  }
  const key = all[best] ?? text;
  // "He is buying a dishwasher rack" says who only with the sentence before it: quoted with it where both fit.
  const prev = best > 0 && REFERS_BACK.test(key) ? all[best - 1]!.trim() : null;
  const before = prev === null ? null : `${prev}${/[。！？]$/u.test(prev) ? '' : ' '}${key.trim()}`;
  return clipped(before && before.length <= max ? before : key, max);
}

/** A sentence that opens with a pronoun of someone or something named before it. */
const REFERS_BACK = /^\s*(?:(?:he|she|they|it|this|that|these|those|his|her|their|its)\b|他|她|它|这|那)/iu;

/** "a", "a and b", "a, b and c" — or with 和 and 、 in Chinese. */
function joinList(items: readonly string[], cjk: boolean): string {
  if (items.length <= 1) return items[0] ?? '';
  return cjk ? `${items.slice(0, -1).join('、')}和${items.at(-1)}` : `${items.slice(0, -1).join(', ')} and ${items.at(-1)}`;
}

type AttachmentKind = StoredMessage['attachments'][number]['kind'];

/** What a shared attachment is called in a title: English one and many, Chinese measure word and noun. */
const SHARED_AS: Record<AttachmentKind, { en: readonly [string, string]; zh: readonly [string, string] }> = {
  image: { en: ['photo', 'photos'], zh: ['张', '照片'] },
  video: { en: ['video', 'videos'], zh: ['段', '视频'] },
  audio: { en: ['voice message', 'voice messages'], zh: ['段', '语音'] },
  file: { en: ['file', 'files'], zh: ['个', '文件'] },
  link: { en: ['link', 'links'], zh: ['个', '链接'] },
  sticker: { en: ['sticker', 'stickers'], zh: ['个', '表情'] },
  other: { en: ['attachment', 'attachments'], zh: ['个', '附件'] },
};

/**
 * "Oma shares 2 photos and a video" / "张三分享了一张照片": the title of an episode that opens with
 * something shared and says nothing that names a topic (its telling, "[shares a photo]", is no title).
 */
function sharedTitle(messages: readonly StoredMessage[], cjk: boolean): string {
  const sharers = [...new Set(messages.filter((m) => m.attachments.length > 0).map((m) => m.speaker))];
  const counts = new Map<AttachmentKind, number>();
  for (const m of messages) for (const a of m.attachments) counts.set(a.kind, (counts.get(a.kind) ?? 0) + 1);
  const parts = [...counts].map(([kind, n]) => {
    const { en, zh } = SHARED_AS[kind];
    if (cjk) return `${n === 1 ? '一' : n === 2 ? '两' : n}${zh[0]}${zh[1]}`;
    return n > 1 ? `${n} ${en[1]}` : withArticle(en[0]);
  });
  if (cjk) return `${joinList(sharers, true)}分享了${parts.join('和')}`;
  return `${joinNames(sharers)} ${sharers.length > 1 ? 'share' : 'shares'} ${joinList(parts, false)}`;
}

/**
 * "Caroline and Melanie on the support group and adoption" / "小明和小红聊到杭州和爬山": who talked, and
 * the topic phrases that are most salient in what they said.
 */
export function heuristicTitle(speakers: readonly string[], phrases: readonly string[], cjk: boolean): string {
  if (cjk) return `${joinList(speakers, true)}${speakers.length > 1 ? '聊到' : '说到'}${joinList(phrases, true)}`;
  return `${joinNames(speakers)} on ${joinList(phrases, false)}`;
}

export interface HeuristicOptions {
  /** How rare a term is in the person's whole memory (the store's BM25 statistics). */
  idf?: Idf | undefined;
}

/** What building an episode reads of its messages before it weighs their words against the whole memory. */
export interface EpisodeReading {
  messages: readonly StoredMessage[];
  speakers: string[];
  texts: string[];
  /** The texts together, without the placeholders of secrets. */
  body: string;
  cjk: boolean;
  topics: TopicReading;
  /** Which messages are a companion's replies where the person spoke too (quietOnes). */
  quiet: boolean[];
}

/**
 * Which messages are a companion's replies where the person spoke too: their words count for less in
 * the title and the summary. They are made of what the person said and of kind words ("have fun!",
 * 早点休息), and a talk is about what the person brought to it.
 */
function quietOnes(messages: readonly StoredMessage[]): boolean[] {
  const personSpoke = messages.some((m) => m.role !== 'assistant');
  return messages.map((m) => personSpoke && m.role === 'assistant');
}

export function readEpisode(messages: readonly StoredMessage[]): EpisodeReading {
  const speakers = [...new Set(messages.map((m) => m.speaker))];
  const texts = messages.map(messageText);
  // A secret's placeholder ("[secret: password]") names no topic and no one: the episode is not about it.
  const unsecret = texts.map((t) => t.replace(SECRET_PLACEHOLDERS, ' '));
  const body = unsecret.join('\n');
  const speakerTerms = new Set(speakers.flatMap((s) => tokenize(s)));
  // Topics come from what was said and shown, not from how an attachment is told ("[shares a photo: …]").
  // A file's name says its words, not its extension or separators: "route_map.jpg" is about a route map.
  // A web address says none (the doc at example.com/plan is not about example.com).
  const saidEach = unsecret.map((t) =>
    t
      .replace(/\[shares (?:a photo|a file|an? [\p{L}]+)(?:: )?/gu, '[')
      .replace(FILE_NAME, (_, stem: string) => stem.replace(/[_.-]+/g, ' '))
      .replace(WEB_ADDRESS, ' | '),
  );
  const said = saidEach.join('\n');
  const quietMessages = quietOnes(messages);
  const quiet: TextSpan[] = [];
  let from = 0;
  saidEach.forEach((t, i) => {
    if (quietMessages[i]) quiet.push({ from, to: from + t.length });
    from += t.length + 1;
  });
  // Its language too: "[shares a photo]" under 山顶风好大 is no English; where nothing was said but
  // things shared, the names of those who shared them tell it.
  const cjk = isMostlyCjk(said) || (!/\p{L}/u.test(said) && isMostlyCjk(speakers.join(' ')));
  return { messages, speakers, texts, body, cjk, topics: readTopics(said, speakerTerms, quiet), quiet: quietMessages };
}

/** The terms whose rarity `episodeFrom` looks up for this reading (a store reads them all at once). */
export function rarityTerms(r: EpisodeReading): Iterable<string> {
  return r.topics.occurrences.keys();
}

/**
 * The degraded-mode builder (no LLM), made useful: the episode states who talked and exactly when, keeps
 * every message (relative dates resolved to absolute ones in the sender's time zone), and draws its title,
 * summary, keywords and entities from the text itself — salient against the person's whole memory when
 * `idf` is given.
 */
export function buildHeuristicEpisode(messages: readonly StoredMessage[], o: HeuristicOptions = {}): EpisodeDraft {
  return episodeFrom(readEpisode(messages), o.idf);
}

/**
 * `topic`: what the conversation is titled, where its title says what it is about (a ChatGPT or Claude
 * conversation's); the title leads with it and adds the episode's own best phrase.
 */
export function episodeFrom(
  { messages, speakers, texts, body, cjk, topics, quiet }: EpisodeReading,
  idf?: Idf,
  topic?: string,
): EpisodeDraft {
  const first = messages[0]!;
  const last = messages.at(-1)!;
  const offset = first.utcOffsetMin;
  const { keywords: kw, phrases } = topicsFrom(topics, { keywords: 8, phrases: cjk ? 3 : 2 }, idf);
  const entities = [...new Set([...speakers, ...properNouns(body, 8)])];

  const mentions = messages.map((m, i) => findTimeMentions(texts[i]!, m.sentAt, m.utcOffsetMin, answering(messages, texts, i)));
  const lines = messages.map((m, i) => `${m.speaker}: ${withTimeNotes(texts[i]!, mentions[i]!)}`);
  // Who talked and when, in the talk's language: a Chinese journal reads no English sentence.
  const header = cjk
    ? `${joinList(speakers, true)}在${describeSpanZh(first.sentAt, last.sentAt, offset)}${speakers.length > 1 ? '聊天' : '留言'}。`
    : `${joinNames(speakers)} talked on ${describeSpan(first.sentAt, last.sentAt, offset)}.`;
  const content = `${header}\n${lines.join('\n')}`;

  // The summary quotes the messages that carry most of the episode's keywords.
  const kwTerms = new Set(kw.flatMap((k) => tokenize(k)));
  const ranked = messages
    .map((m, i) => ({ m, i, quiet: quiet[i]! }))
    .map((x) => ({ ...x, score: tokenize(texts[x.i]!).filter((t) => kwTerms.has(t)).length * (x.quiet ? QUIET_WEIGHT : 1) }))
    .filter((x) => x.score > 0)
    .sort((a, b) => b.score - a.score || Number(a.quiet) - Number(b.quiet) || a.i - b.i)
    .slice(0, 2)
    .sort((a, b) => a.i - b.i);
  const keyPoints = ranked.map((x) => keySentence(texts[x.i]!, kwTerms, 160));
  // Without a keyword, the first messages say what the episode is.
  const summary = ranked.length
    ? ranked.map((x, n) => `${x.m.speaker}: ${keyPoints[n]}`).join(' ')
    : messages
        .slice(0, 2)
        .map((m, i) => `${m.speaker}: ${firstSentence(texts[i]!, 160)}`)
        .join(' ');

  const topicTerms = topic ? new Set(tokenize(topic)) : null;
  const named = topicTerms ? [topic!, ...phrases.filter((p) => !tokenize(p).every((t) => topicTerms.has(t))).slice(0, 1)] : phrases;
  const title = named.length
    ? heuristicTitle(speakers, named, cjk)
    : !first.text.trim() && first.attachments.length > 0
      ? sharedTitle(messages, cjk)
      : firstSentence(texts[0] || joinNames(speakers), 80);

  const timeReferences = mentions.flat().map(timeReference);

  return {
    episodeType: 'conversational',
    level: 1,
    title,
    content,
    summary,
    temporal: { start: first.sentAt, end: last.sentAt, utcOffsetMin: offset },
    metadata: {
      entities,
      topics: kw.slice(0, 3),
      emotions: [],
      keyPoints,
      timeReferences,
      participants: speakers,
      messageCount: messages.length,
      custom: {},
    },
    structuredData: {},
    keywords: kw,
    importance: 0.5,
    builder: 'heuristic',
    processingStatus: 'ready',
    processingVersion: HEURISTIC_VERSION,
  };
}
