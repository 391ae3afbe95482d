import type { Embedder } from '../embed/embedder.js';
import { hasCjk } from '../text/tokenize.js';

/**
 * The similarity below which a result found only by meaning is noise. Every model has its own scale
 * (e5 puts unrelated texts near 0.75, the Universal Sentence Encoder near 0.1, the test model anywhere
 * from −0.25 to 0.25), so the floor is measured, not set: once per model, the questions below are
 * compared with statements on other subjects, and the floor is a high quantile of those unrelated
 * similarities. A vector-only result under it is dropped; a result that also matches keywords is kept
 * whatever its similarity.
 *
 * The floor is measured per script of the question, because a model's scale depends on whether it reads
 * the script at all: a model trained on English maps every Chinese sentence to nearly the same vector, so
 * its unrelated Chinese pairs look alike — its floor for Chinese questions is high (its vector results for
 * them are noise), while its English floor stays low.
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

/** A model's floors: for questions written in a CJK script, and for all others. */
type Floors = { cjk: number; other: number };

const floors = new WeakMap<Embedder, Promise<Floors>>();

function dot(a: Float32Array, b: Float32Array): number {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += a[i]! * b[i]!;
  return s;
}

/**
 * The floor from unrelated question–statement pairs: question i belongs with statement i, every other
 * pair is unrelated; only the questions `asked` picks are counted (pure: tests and benchmarks call it).
 */
export function floorFrom(
  questions: readonly Float32Array[],
  statements: readonly Float32Array[],
  asked: (i: number) => boolean = () => true,
): number {
  const unrelated: number[] = [];
  questions.forEach((q, i) => asked(i) && statements.forEach((p, j) => i !== j && unrelated.push(dot(q, p))));
  unrelated.sort((a, b) => a - b);
  return unrelated[Math.min(unrelated.length - 1, Math.floor(QUANTILE * unrelated.length))] ?? -1;
}

/** The model's relevance floor for `query`, measured on first use and remembered for the life of the embedder. */
export async function relevanceFloor(embedder: Embedder, query: string): Promise<number> {
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
      const cjk = TOPICS.map((t) => hasCjk(t.q));
      return { cjk: floorFrom(questions, statements, (i) => cjk[i]!), other: floorFrom(questions, statements, (i) => !cjk[i]) };
    })();
    // A failure is not remembered: the next search measures again.
    f.catch(() => floors.delete(embedder));
    floors.set(embedder, f);
  }
  const measured = await f;
  return hasCjk(query) ? measured.cjk : measured.other;
}
