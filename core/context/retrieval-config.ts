import { z } from 'zod';

/**
 * Packing evidence (core/retrieval/pack.ts): the found episodes' messages are scored one by one and
 * the best are packed, with their episode's header, within a word budget. The defaults were chosen
 * leave-one-conversation-out on the LoCoMo development conversations (bench/locomo-loo.ts; through
 * loadContext itself, bench/locomo-loo-runs.ts).
 */
export const PackConfig = z.object({
  /** Episodes the first stage (the episode search) hands on; their messages are the candidates. */
  depth: z.number().int().positive().default(60),
  k1: z.number().positive().default(1.2),
  b: z.number().min(0).max(1).default(0.75),
  /**
   * BM25F field weights of a message: its text, its speaker, its episode's title/topics/people, the
   * turns just before and after it.
   */
  fields: z
    .object({
      text: z.number().min(0).default(1),
      speaker: z.number().min(0).default(0.5),
      context: z.number().min(0).default(0.3),
      near: z.number().min(0).default(0.4),
    })
    .default({ text: 1, speaker: 0.5, context: 0.3, near: 0.4 }),
  /** A message that only asks (ends with a question) is worth this share of its score: the answer is the evidence. */
  asking: z.number().min(0).max(1).default(0.7),
  /**
   * Part of a neighbouring turn's match a message borrows: an answer rarely repeats the question's
   * words ("Anything you're excited about in the adoption?" — "Making a family for kids who need one").
   */
  borrow: z
    .object({
      previous: z.number().min(0).max(1).default(0.6),
      next: z.number().min(0).max(1).default(0.6),
      /** Two turns away. */
      previous2: z.number().min(0).max(1).default(0.3),
      next2: z.number().min(0).max(1).default(0),
    })
    .default({ previous: 0.6, next: 0.6, previous2: 0.3, next2: 0 }),
  /** Weight of query terms that are a speaker's name (the speaker boost stands for them instead). */
  speakerTerms: z.number().min(0).max(1).default(0.3),
  /** Where messages have vectors: the share of a message's own match that is similarity in meaning. */
  vectorWeight: z.number().min(0).max(1).default(0),
  /** Share of a message's score that comes from its episode's rank in the first stage (0–1). */
  episodeWeight: z.number().min(0).max(1).default(0.3),
  /**
   * Weight of how close a message's episode is in meaning to the query (its similarity, scaled over the
   * candidate episodes). Rank fusion keeps the vector half's order but not its distances: a turn that
   * shares no word with the question ("we went camping" for "What activities does Melanie partake
   * in?") is told apart from the chatter around it only by how near its episode is.
   */
  episodeMeaning: z.number().min(0).default(0.3),
  /** A question naming a date: messages from then weigh up to this much more (core/retrieval/query-time.ts). */
  timeBoost: z.number().min(0).default(1),
  /** A question naming a speaker: that speaker's messages weigh this much more. */
  speakerBoost: z.number().min(0).default(1),
  /**
   * A message longer than this many words (a chatbot's answer in an imported ChatGPT or Claude history)
   * is quoted by its sentences that hold the query's words, within as many words. Chosen for a
   * companion's budget (~100 words of its default 1,200 tokens), not on LoCoMo, whose turns are shorter.
   */
  quoteWords: z.number().int().positive().default(100),
  /** Pseudo-relevance feedback: terms shared by the best messages, added to the query at a lower weight. */
  feedback: z
    .object({
      terms: z.number().int().min(0).default(0),
      docs: z.number().int().positive().default(8),
      minDocs: z.number().int().positive().default(2),
      weight: z.number().min(0).default(0.3),
    })
    .default({ terms: 0, docs: 8, minDocs: 2, weight: 0.3 }),
  /**
   * Diversity: each message already taken from the same episode (day) multiplies a candidate's score by
   * this. Measured, context beats spread: a mild episode decay and none per day.
   */
  episodeDecay: z.number().min(0).max(1).default(0.9),
  dayDecay: z.number().min(0).max(1).default(1),
  /** A block's header: its date and title, its date and the title without the people's names, or its date. */
  header: z.enum(['full', 'short', 'date']).default('short'),
  /**
   * Neighbouring turns packed with a message: none; the answer after a question (`answers`); the turn a
   * short or pointing-back answer refers to (`referents`); both (`replies`); or the turn it borrows its
   * match from (`borrowed`).
   */
  neighbours: z.enum(['none', 'answers', 'referents', 'replies', 'borrowed']).default('answers'),
});
export type PackConfig = z.infer<typeof PackConfig>;

/**
 * Retrieval tuning; every number here is a setting, with the defaults the benchmarks were run with.
 * k1, b and the field weights shape the stored BM25 impacts: after changing them, rebuild the indexes.
 */
export const RetrievalConfig = z.object({
  bm25: z
    .object({
      k1: z.number().positive().default(1.2),
      b: z.number().min(0).max(1).default(0.75),
      /** Field weights: title, summary, entities, topics, content. */
      weights: z.tuple([z.number(), z.number(), z.number(), z.number(), z.number()]).default([3, 2, 2, 2, 1]),
      /** Postings read per query term, strongest first (see core/store/bm25.ts). */
      postingsPerTerm: z.number().int().positive().default(1000),
      /** The best this many documents by the postings read are scored exactly; 0: not (see core/store/bm25.ts). */
      rescoreDepth: z.number().int().min(0).default(100),
    })
    .default({ k1: 1.2, b: 0.75, weights: [3, 2, 2, 2, 1], postingsPerTerm: 1000, rescoreDepth: 100 }),
  /**
   * How hybrid search mixes its keyword and vector rankings: by rank (`rrf`, the default) or by scaled
   * score (`weighted`). Rank fusion trusts no model's similarity scale: a memory that says the query's
   * words keeps its place however a weak model scores it, and no α has to be calibrated per model
   * (LoCoMo dev, use-lite: evidence packing 0.839 / 0.882 at 1000 / 2000 words against 0.833 / 0.869,
   * no conversation worse; search unchanged; with the tiny test model search 0.788 against 0.775).
   */
  fusion: z.enum(['weighted', 'rrf']).default('rrf'),
  /** Weighted fusion: score = α · semantic + (1 − α) · keyword. */
  alpha: z.number().min(0).max(1).default(0.7),
  rrfK: z.number().positive().default(60),
  /**
   * Each mode contributes this many candidates per result asked for (at least `minCandidates`). The
   * evidence packer's first stage asks for 60 episodes: with 3, each mode's 180 best are fused instead
   * of 240, and LoCoMo dev (use-lite) finds the same on every conversation and path as with 4 (with 2,
   * load-context 0.852 / 0.876 against 0.856 / 0.882 at 1000 / 2000 words), while loadContext at 100k
   * episodes took 36.7–38.9 ms at the median against 39.6–43.2 (alternating; p95 63–71 against 69–77).
   */
  candidateFactor: z.number().int().positive().default(3),
  /**
   * A page of 10 fuses each mode's 30 best, chosen for speed at no measured cost: a hybrid search at
   * 100k episodes reads 120 neighbours by sign bits instead of 160 (p50 11.7–12.0 against 12.7–13.5 ms,
   * alternating). LoCoMo dev (use-lite), the search path at 500 / 1000 / 2000 words: asked for 10
   * results 0.702 / 0.786 / 0.827 against 0.702 / 0.782 / 0.824 with 40 (one conversation better, none
   * worse); for 8, as a companion asks, 0.698 / 0.779 / 0.799 against 0.700 / 0.780 / 0.795 (one
   * conversation 0.013 worse, one 0.007 better at 1000); deeper asks unchanged.
   */
  minCandidates: z.number().int().positive().default(30),
  /**
   * Results found only by meaning need at least this similarity: `measured` per model from unrelated
   * text pairs (core/retrieval/relevance-floor.ts), a number, or `off`.
   */
  vectorFloor: z.union([z.literal('measured'), z.literal('off'), z.number().min(-1).max(1)]).default('measured'),
  pack: PackConfig.default(PackConfig.parse({})),
  /**
   * Search re-sorts the episode hits of its page by their best message, with as many hits from below the
   * page (within this many) that match the query's words most strongly; 0: off (see core/retrieval/find.ts).
   */
  rerankDepth: z.number().int().min(0).default(40),
});
export type RetrievalConfig = z.infer<typeof RetrievalConfig>;
export const defaultRetrievalConfig: RetrievalConfig = RetrievalConfig.parse({});
