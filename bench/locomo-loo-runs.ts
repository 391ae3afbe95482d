/**
 * Leave-one-conversation-out over whole `bench:locomo` runs: each run is one candidate setting (say,
 * `--config '{"retrieval":{"pack":{"episodeMeaning":0.3}}}'`), measured through any path — including
 * `--through load-context`, which bench/locomo-loo.ts cannot replay from cached stages. For each
 * conversation, the run with the best mean recall over the budgets on the *other* conversations is
 * chosen (the first run given wins a tie) and measured on the held-out one: pooled, and per category
 * where the runs say it per conversation. Prints one JSON object.
 *
 *   npx tsx bench/locomo-loo-runs.ts reference.json candidate-1.json candidate-2.json …
 */
import fs from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import { round } from './stats.js';

const Recall = z.record(z.string(), z.number());
const Share = z.object({ questions: z.number().int().positive(), recall: Recall });
const Run = z.object({
  recall: Recall,
  byConversation: z.record(z.string(), Share.extend({ byCategory: z.record(z.string(), Share).optional() })),
});
type Run = z.infer<typeof Run>;

/** A run's JSON, past any lines npm printed before it. */
function readRun(file: string): Run {
  const text = fs.readFileSync(file, 'utf8');
  const start = text.search(/^\{/m);
  if (start < 0) throw new Error(`${file}: no JSON object in it`);
  return Run.parse(JSON.parse(text.slice(start)));
}

const files = process.argv.slice(2);
if (files.length < 2) throw new Error('give at least two bench:locomo outputs: the reference first, then the candidates');
const runs = files.map((f) => ({ label: path.basename(f, '.json'), run: readRun(f) }));
const budgets = Object.keys(runs[0]!.run.recall);
const conversations = Object.keys(runs[0]!.run.byConversation);
for (const { label, run } of runs) {
  const theirs = Object.keys(run.byConversation);
  if (theirs.join() !== conversations.join() || Object.keys(run.recall).join() !== budgets.join())
    throw new Error(`${label}: other conversations or budgets than ${runs[0]!.label}`);
}

type Share = z.infer<typeof Share>;
/** Questions hit: recall is printed to three decimals, so recall × questions gives the count exactly. */
const hitsOf = (s: Share, budget: string) => Math.round(s.recall[budget]! * s.questions);
/** Recall pooled over some shares of questions (each weighs by its questions), at one budget. */
function pooledOver(shares: readonly Share[], budget: string): number | null {
  const n = shares.reduce((sum, s) => sum + s.questions, 0);
  return n ? shares.reduce((sum, s) => sum + hitsOf(s, budget), 0) / n : null;
}
const pooled = (run: Run, among: readonly string[], budget: string) =>
  pooledOver(
    among.map((c) => run.byConversation[c]!),
    budget,
  )!;
const mean = (run: Run, among: readonly string[]) => budgets.reduce((sum, b) => sum + pooled(run, among, b), 0) / budgets.length;

const folds = conversations.map((heldOut) => {
  const train = conversations.filter((c) => c !== heldOut);
  const chosen = runs.reduce((best, r) => (mean(r.run, train) > mean(best.run, train) ? r : best));
  return {
    heldOut,
    chosen: chosen.label,
    trainMean: round(mean(chosen.run, train)),
    heldOutRecall: chosen.run.byConversation[heldOut]!.recall,
  };
});
/** Held-out recall pooled over the folds, from each fold's chosen run: `share` picks the questions counted. */
function pooledHeldOut(share: (run: Run, conversation: string) => Share | undefined) {
  const shares = folds.flatMap((f) => share(runs.find((r) => r.label === f.chosen)!.run, f.heldOut) ?? []);
  return Object.fromEntries(
    budgets.map((b) => {
      const recall = pooledOver(shares, b);
      return [b, recall === null ? null : round(recall)];
    }),
  );
}
const categories = [...new Set(conversations.flatMap((c) => Object.keys(runs[0]!.run.byConversation[c]!.byCategory ?? {})))].sort();
console.log(
  JSON.stringify(
    {
      loo: pooledHeldOut((run, c) => run.byConversation[c]),
      looByCategory: Object.fromEntries(categories.map((k) => [k, pooledHeldOut((run, c) => run.byConversation[c]!.byCategory?.[k])])),
      folds,
      runs: runs.map(({ label, run }) => ({ label, recall: run.recall, mean: round(mean(run, conversations)) })),
    },
    null,
    2,
  ),
);
