import type { Engine } from '../core/engine/open-engine.js';
import type { EngineContext } from '../core/context/engine-context.js';
import type { SearchMode } from '../core/domain/search.js';
import { packEvidence } from '../core/retrieval/pack.js';
import type { LocomoSample } from './locomo-data.js';
import { round, words } from './stats.js';

/**
 * The LoCoMo evidence-recall metric, shared by bench/locomo.ts and bench/locomo-loo.ts:
 * take what retrieval returns, item by item, until its text exceeds B words (the first item always
 * counts); the question is a hit when the messages whose text was taken cover all its evidence.
 */

export interface Question {
  conversation: string;
  category: number;
  question: string;
  evidence: string[];
}

export function questionsOf(samples: readonly LocomoSample[]): Question[] {
  return samples.flatMap((s) =>
    s.questions
      .filter((q) => q.category >= 1 && q.category <= 4 && q.evidence.length > 0)
      .map((q) => ({
        conversation: s.id,
        category: q.category,
        question: q.question,
        evidence: q.evidence.flatMap((e) => e.split(/[;,\s]+/)).filter(Boolean),
      })),
  );
}

/** An answer to one question as the metric reads it: items with their text and the dia_ids they cover. */
export interface Retrieved {
  items: { text: string; covers: (string | null)[] }[];
}

export function covered(r: Retrieved, budget: number): Set<string> {
  const out = new Set<string>();
  let used = 0;
  for (const [i, item] of r.items.entries()) {
    const n = words(item.text);
    if (i > 0 && used + n > budget) break;
    used += n;
    for (const id of item.covers) if (id) out.add(id);
  }
  return out;
}

/** What is measured: search's ranked items, the evidence packer's blocks, or the block loadContext hands a companion. */
export type Through = 'search' | 'pack' | 'load-context';

export interface RetrieveOptions {
  through: Through;
  mode: SearchMode;
  kind: 'all' | 'episodic' | 'semantic';
  limit: number;
}

/**
 * What one question retrieves per budget. Search answers once (its ranking does not depend on the
 * budget); the packer is asked once per budget, and its text counts against that budget.
 */
export async function retrieve(
  engine: Engine,
  ctx: EngineContext,
  ownerId: string,
  query: string,
  budgets: readonly number[],
  o: RetrieveOptions,
): Promise<{ byBudget: Map<number, Retrieved>; ms: number; warnings: string[]; modeUsed: string; kinds: string[] }> {
  const byBudget = new Map<number, Retrieved>();
  const t = performance.now();
  if (o.through === 'search') {
    const out = await engine.call('search', { ownerId, query, mode: o.mode, kind: o.kind, limit: o.limit });
    const r: Retrieved = { items: out.results.map((x) => ({ text: x.text, covers: x.sources.map((s) => s.externalId) })) };
    for (const b of budgets) byBudget.set(b, r);
    return { byBudget, ms: performance.now() - t, warnings: out.warnings, modeUsed: out.mode, kinds: out.results.map((x) => x.kind) };
  }
  const warnings = new Set<string>();
  let modeUsed = '';
  if (o.through === 'load-context') {
    for (const b of budgets) {
      // loadContext counts tokens (about 1.3 an English word); its whole Markdown block is what a companion gets.
      const out = await engine.call('loadContext', { ownerId, query, budgetTokens: Math.max(100, Math.round(b * 1.3)) });
      for (const w of out.warnings) warnings.add(w);
      const quoted = out.sections.related.flatMap((x) =>
        x.kind === 'episode' ? x.messages.map((m) => m.id) : x.kind === 'message' ? [x.id] : [],
      );
      // A fact shown (about the person, or related to the query) covers the turns it was drawn from, as in search.
      const keys = [...out.sections.about.keys, ...out.sections.related.flatMap((x) => (x.kind === 'fact' ? [x.key] : []))];
      const stored = await ctx.store.read.conversations.messagesByIds(ownerId, [...quoted, ...(await factSources(ctx, ownerId, keys))]);
      byBudget.set(b, { items: [{ text: out.markdown, covers: stored.map((m) => m.externalId) }] });
    }
    return { byBudget, ms: (performance.now() - t) / budgets.length, warnings: [...warnings], modeUsed: 'load-context', kinds: [] };
  }
  for (const b of budgets) {
    const p = await packEvidence(ctx, { ownerId, query, budget: b, mode: o.mode });
    for (const w of p.warnings) warnings.add(w);
    modeUsed = p.modeUsed;
    byBudget.set(b, { items: p.blocks.map((x) => ({ text: x.text, covers: x.messages.map((m) => m.externalId) })) });
  }
  return { byBudget, ms: (performance.now() - t) / budgets.length, warnings: [...warnings], modeUsed, kinds: [] };
}

/** The messages the facts with these keys were drawn from. */
async function factSources(ctx: EngineContext, ownerId: string, keys: readonly string[]): Promise<string[]> {
  const read = ctx.store.read;
  const ids = (await Promise.all(keys.map((k) => read.facts.byKey(ownerId, k)))).flatMap((f) => (f ? [f.id] : []));
  return [...(await read.factVersions.sourceMessages(ownerId, ids)).values()].flat();
}

export interface Outcome {
  question: Question;
  /** budget → hit */
  hits: Map<number, boolean>;
}

export function hit(q: Question, r: Retrieved, budget: number): boolean {
  const c = covered(r, budget);
  return q.evidence.every((e) => c.has(e));
}

export function rate(outcomes: readonly Outcome[], budgets: readonly number[]): Record<string, number> {
  return Object.fromEntries(
    budgets.map((b) => [String(b), round(outcomes.length ? outcomes.filter((o) => o.hits.get(b)).length / outcomes.length : 0)]),
  );
}

/** Overall, per category and per conversation (each also per category), with the spread (max − min) across conversations. */
export function summarize(outcomes: readonly Outcome[], budgets: readonly number[]) {
  const group = (of: readonly Outcome[], key: (o: Outcome) => string) => {
    const m = new Map<string, Outcome[]>();
    for (const o of of) {
      const k = key(o);
      m.set(k, [...(m.get(k) ?? []), o]);
    }
    return [...m].sort((a, b) => a[0].localeCompare(b[0], 'en', { numeric: true }));
  };
  const byCategory = (of: readonly Outcome[]) =>
    Object.fromEntries(
      group(of, (o) => String(o.question.category)).map(([k, v]) => [k, { questions: v.length, recall: rate(v, budgets) }]),
    );
  const byConversation = Object.fromEntries(
    group(outcomes, (o) => o.question.conversation).map(([k, v]) => [
      k,
      { questions: v.length, recall: rate(v, budgets), byCategory: byCategory(v) },
    ]),
  );
  const spread = Object.fromEntries(
    budgets.map((b) => {
      const xs = Object.values(byConversation).map((c) => c.recall[String(b)]!);
      return [String(b), xs.length ? round(Math.max(...xs) - Math.min(...xs)) : 0];
    }),
  );
  return {
    recall: rate(outcomes, budgets),
    byCategory: byCategory(outcomes),
    byConversation,
    spread,
  };
}
