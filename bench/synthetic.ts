import type { OpInput } from '../core/api/contract.js';

/** A deterministic PRNG (mulberry32): the same seed gives the same corpus on every machine. */
export function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const names = ['Alice', 'Bob', 'Chen', 'Dana', 'Emma', 'Farid', 'Grace', 'Hiro', 'Ines', 'Jonas', 'Kai', 'Lena'];
const zhNames = ['小明', '小红', '阿伟', '丽丽', '王芳', '李雷', '韩梅梅', '张伟'];
const nouns = ['trip', 'concert', 'garden', 'project', 'recipe', 'marathon', 'interview', 'painting', 'guitar', 'camera', 'apartment', 'bicycle', 'novel', 'puppy', 'wedding', 'exam', 'startup', 'vaccine', 'festival', 'kayak', 'telescope', 'bakery', 'museum', 'podcast', 'robot', 'violin', 'tent', 'laptop', 'orchard', 'pottery'];
const places = ['Lisbon', 'Kyoto', 'Berlin', 'the lake', 'the mountains', 'Toronto', 'the office', 'the beach', 'Seoul', 'the library', 'Nairobi', 'the market', 'Oslo', 'the clinic', 'Lima'];
const verbs = ['planned', 'finished', 'started', 'cancelled', 'loved', 'photographed', 'fixed', 'sold', 'bought', 'visited', 'postponed', 'shared', 'practised', 'painted', 'booked'];
const adjs = ['amazing', 'exhausting', 'expensive', 'peaceful', 'chaotic', 'beautiful', 'stressful', 'surprising', 'quiet', 'crowded', 'delicious', 'muddy'];
const zhTopics = ['机器学习', '周末爬山', '上海出差', '北京大学', '学做饭', '买房子', '看电影', '养小狗', '跑马拉松', '学钢琴', '装修', '旅行计划', '面试', '考研', '咖啡店'];
const zhPlaces = ['上海', '北京', '杭州', '成都', '深圳', '西安', '南京', '广州'];
const zhAdjs = ['很开心', '有点累', '特别贵', '非常安静', '挺热闹', '很顺利'];

const pick = <T>(r: () => number, xs: readonly T[]): T => xs[Math.floor(r() * xs.length)]!;

function englishLine(r: () => number, speaker: string, other: string): string {
  const n = pick(r, nouns);
  const templates = [
    () => `I ${pick(r, verbs)} the ${n} in ${pick(r, places)} and it was ${pick(r, adjs)}.`,
    () => `Did you hear that ${other} ${pick(r, verbs)} a ${n} last week? Sounds ${pick(r, adjs)}.`,
    () => `My ${n} plans for ${pick(r, places)} are ${pick(r, adjs)}, maybe we should go together.`,
    () => `Honestly the ${n} was ${pick(r, adjs)}, ${speaker === other ? 'again' : 'but worth it'} — next time ${pick(r, places)}.`,
  ];
  return pick(r, templates)();
}

function chineseLine(r: () => number): string {
  const templates = [
    () => `我最近在忙${pick(r, zhTopics)}，上周去了${pick(r, zhPlaces)}，${pick(r, zhAdjs)}。`,
    () => `你还记得${pick(r, zhTopics)}的事吗？我们下个月在${pick(r, zhPlaces)}见面吧。`,
    () => `昨天和朋友聊${pick(r, zhTopics)}，感觉${pick(r, zhAdjs)}。`,
  ];
  return pick(r, templates)();
}

/**
 * Conversations of `sessions` sessions each; sessions are hours apart, so each becomes one episode.
 * About a third are in Chinese.
 */
export function syntheticConversation(index: number, sessions: number, messagesPerSession = 6): OpInput<'ingestConversation'>['conversation'] {
  const r = rng(index + 1);
  const zh = r() < 0.33;
  const [a, b] = zh ? [pick(r, zhNames), pick(r, zhNames)] : [pick(r, names), pick(r, names)];
  let t = Date.UTC(2015, 0, 1) + index * 7 * 86_400_000;
  const messages = [];
  for (let s = 0; s < sessions; s++) {
    t += (3 + Math.floor(r() * 48)) * 3_600_000;
    for (let m = 0; m < messagesPerSession; m++) {
      const speaker = m % 2 === 0 ? a! : b!;
      messages.push({
        id: `${index}-${s}-${m}`,
        speaker,
        text: zh ? chineseLine(r) : englishLine(r, speaker, m % 2 === 0 ? b! : a!),
        timestamp: new Date(t + m * 60_000).toISOString(),
      });
    }
  }
  return { id: `synthetic-${index}`, messages };
}

export function syntheticQueries(count: number): string[] {
  const r = rng(424242);
  return Array.from({ length: count }, (_, i) =>
    i % 3 === 2 ? `${pick(r, zhTopics)} ${pick(r, zhPlaces)}` : `${pick(r, nouns)} in ${pick(r, places)} ${pick(r, adjs)}`,
  );
}
