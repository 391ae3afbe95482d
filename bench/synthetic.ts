import fs from 'node:fs';
import path from 'node:path';
import type { OpInput } from '../core/api/contract.js';
import { tokenize } from '../core/text/tokenize.js';
import { prng } from '../test/fixtures/tiny-model/generate.js';

/** The same seeded PRNG the tiny model is generated with: the same corpus on every machine. */
export const rng = prng;

/** Words of the tiny model's hand-written vocabularies, roughly in frequency order (see its README). */
function vocabulary(file: string, split: (line: string) => string[]): string[] {
  const text = fs.readFileSync(path.join(import.meta.dirname, '..', 'test', 'fixtures', 'tiny-model', file), 'utf8');
  return [
    ...new Set(
      text
        .split('\n')
        .filter((l) => l && !l.startsWith('#'))
        .flatMap(split),
    ),
  ];
}
const english = vocabulary('vocab-en.txt', (l) => l.split(/\s+/).filter((w) => /^[a-z]+$/.test(w)));
const hanzi = vocabulary('vocab-zh.txt', (l) => [...l.replace(/\s+/g, '')]);

/** Zipf-distributed rank sampler (s ≈ 1.07, as in natural text): a few very common words, a long tail. */
function zipf(n: number, s = 1.07): (r: () => number) => number {
  const cdf: number[] = [];
  let sum = 0;
  for (let k = 1; k <= n; k++) cdf.push((sum += 1 / k ** s));
  return (r) => {
    const x = r() * sum;
    let lo = 0,
      hi = n - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (cdf[mid]! < x) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  };
}
const enRank = zipf(english.length);
const zhRank = zipf(hanzi.length);

const names = [
  'Alice',
  'Bob',
  'Chen',
  'Dana',
  'Emma',
  'Farid',
  'Grace',
  'Hiro',
  'Ines',
  'Jonas',
  'Kai',
  'Lena',
  'Mateo',
  'Noor',
  'Olga',
  'Priya',
];
const zhNames = ['小明', '小红', '阿伟', '丽丽', '王芳', '李雷', '韩梅梅', '张伟'];
const pick = <T>(r: () => number, xs: readonly T[]): T => xs[Math.floor(r() * xs.length)]!;

function englishLine(r: () => number): string {
  const n = 8 + Math.floor(r() * 16);
  const words = Array.from({ length: n }, () => english[enRank(r)]!);
  if (r() < 0.3) words.splice(Math.floor(r() * n), 0, pick(r, names));
  return `${words.join(' ')}.`;
}

function chineseLine(r: () => number): string {
  const n = 10 + Math.floor(r() * 20);
  return `${Array.from({ length: n }, () => hanzi[zhRank(r)]!).join('')}。`;
}

/**
 * Conversations of `sessions` sessions each; sessions are hours apart, so each becomes one episode.
 * About a third are in Chinese. Words follow a Zipf law over a ~2k-word English and ~800-character
 * Chinese vocabulary, so posting-list lengths look like those of real chat text.
 */
export function syntheticConversation(
  index: number,
  sessions: number,
  messagesPerSession = 6,
): OpInput<'ingestConversation'>['conversation'] {
  const r = rng(index + 1);
  const zh = r() < 0.33;
  const [a, b] = zh ? [pick(r, zhNames), pick(r, zhNames)] : [pick(r, names), pick(r, names)];
  let t = Date.UTC(2015, 0, 1) + index * 7 * 86_400_000;
  const messages = [];
  for (let s = 0; s < sessions; s++) {
    t += (3 + Math.floor(r() * 48)) * 3_600_000;
    for (let m = 0; m < messagesPerSession; m++) {
      messages.push({
        id: `${index}-${s}-${m}`,
        speaker: m % 2 === 0 ? a! : b!,
        text: zh ? chineseLine(r) : englishLine(r),
        timestamp: new Date(t + m * 60_000).toISOString(),
      });
    }
  }
  return { id: `synthetic-${index}`, messages };
}

/** Queries of 2–4 content words (no stopwords), a third of them Chinese. */
export function syntheticQueries(count: number): string[] {
  const r = rng(424242);
  const content = (list: readonly string[], rank: (r: () => number) => number): string => {
    for (;;) {
      const w = list[rank(r)]!;
      if (tokenize(w).length > 0) return w;
    }
  };
  return Array.from({ length: count }, (_, i) => {
    const n = 2 + Math.floor(r() * 3);
    return i % 3 === 2
      ? Array.from({ length: n }, () => content(hanzi, zhRank) + content(hanzi, zhRank)).join(' ')
      : Array.from({ length: n }, () => content(english, enRank)).join(' ');
  });
}

/**
 * The `index`th of a person's synthetic facts, as a companion would store them (`upsertKnowledge`): a
 * distinct key, a value of 6–15 words drawn like the conversations' (so facts share words with the
 * queries), an importance spread over [0, 1), one tag.
 */
export function syntheticFact(index: number): Omit<OpInput<'upsertKnowledge'>, 'ownerId'> {
  const r = rng(1_000_000 + index);
  const word = () => english[enRank(r)]!;
  const value = Array.from({ length: 6 + Math.floor(r() * 10) }, word).join(' ');
  return { key: `topic:${word()}_${word()}_${index}`, value, metadata: { importance: r(), tags: [word()] } };
}
