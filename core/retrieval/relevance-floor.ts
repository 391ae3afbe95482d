import type { Embedder } from '../embed/embedder.js';

/**
 * The similarity below which a result found only by meaning is noise. Every model has its own scale
 * (e5 puts unrelated texts near 0.75, the Universal Sentence Encoder near 0.1, the test model anywhere
 * from −0.25 to 0.25), so the floor is measured, not set: once per model, the questions below are
 * compared with statements on other subjects, in English and Chinese, and the floor is a high quantile
 * of those unrelated similarities. A vector-only result under it is dropped; a result that also matches
 * keywords is kept whatever its similarity.
 */

const TOPICS: readonly { q: string; p: string }[] = [
  { q: 'When is the quarterly tax report due?', p: 'I filed the tax return and the accountant checked the receipts.' },
  { q: 'Where did we go hiking last summer?', p: 'We climbed the mountain trail and camped near the summit.' },
  { q: 'How is the piano practice going?', p: 'My teacher wants me to practise scales before the recital.' },
  { q: 'Who is coming to the birthday dinner?', p: 'Eight friends booked a table to celebrate her thirtieth birthday.' },
  { q: 'What did the mechanic say about the car?', p: 'The garage replaced the brakes and the engine oil.' },
  { q: 'Is the cat still sick?', p: 'The kitten sleeps on the sofa and chases the dog.' },
  { q: 'Which team won the basketball game?', p: 'The players scored in the last minute and won the championship.' },
  { q: 'How did the job interview go?', p: 'The company offered me the position after three rounds of interviews.' },
  { q: '下周去哪里旅游？', p: '我们订了去云南的火车票和大理的客栈。' },
  { q: '医生怎么说你的感冒？', p: '医生开了药，让我多喝水多休息。' },
  { q: '花园里的番茄熟了吗？', p: '阳台上种的番茄和辣椒都结果了。' },
  { q: '你最近在学什么编程语言？', p: '我在写一个网站的后端，用的是数据库和服务器。' },
];

/** The share of unrelated similarities the floor stands above. */
const QUANTILE = 0.95;

const floors = new WeakMap<Embedder, Promise<number>>();

function dot(a: Float32Array, b: Float32Array): number {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += a[i]! * b[i]!;
  return s;
}

/** The floor from unrelated question–statement pairs (pure: tests and benchmarks call it on their vectors). */
export function floorFrom(questions: readonly Float32Array[], statements: readonly Float32Array[]): number {
  const unrelated: number[] = [];
  questions.forEach((q, i) => statements.forEach((p, j) => i !== j && unrelated.push(dot(q, p))));
  unrelated.sort((a, b) => a - b);
  return unrelated[Math.min(unrelated.length - 1, Math.floor(QUANTILE * unrelated.length))] ?? -1;
}

/** The model's relevance floor, measured on first use and remembered for the life of the embedder. */
export function relevanceFloor(embedder: Embedder): Promise<number> {
  let f = floors.get(embedder);
  if (!f) {
    f = (async () => {
      const questions = await embedder.embed(
        TOPICS.map((t) => t.q),
        'query',
      );
      const statements = await embedder.embed(
        TOPICS.map((t) => t.p),
        'passage',
      );
      return floorFrom(questions, statements);
    })();
    // A failure is not remembered: the next search measures again.
    f.catch(() => floors.delete(embedder));
    floors.set(embedder, f);
  }
  return f;
}
