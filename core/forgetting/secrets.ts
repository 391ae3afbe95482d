import { createHash } from 'node:crypto';
import type { EngineContext } from '../context/engine-context.js';
import type { Episode } from '../domain/episode.js';
import { parseKey } from '../domain/fact.js';
import { entityKey, predicateKey } from '../episodes/entity-names.js';
import { embeddingText, indexEpisodes, unindexEpisodes } from '../retrieval/indexing.js';
import type { EpisodeWords } from '../store/episodes.js';
import type { Repos } from '../store/store.js';
import type { FactWords, MessageWords } from '../store/privacy.js';
import { reindexFact } from '../facts/learn.js';
import { factEmbeddingText } from '../text/fact-text.js';
import type { PrivacyRules } from '../privacy/redact.js';
import { mapStrings, redactNamedSecret, redactText, redactValue } from '../privacy/redact.js';
import { SECRET_SHAPES_GENERATION } from '../privacy/secret-kinds.js';

/** Messages read (and written) per page, and episodes filtered per transaction. */
const MESSAGE_PAGE = 1000;
const EPISODE_BATCH = 64;

export interface ScrubOutcome {
  /** Copies of secrets replaced by placeholders: each message, title and field of an episode that held one counts. */
  secrets: number;
  /** Rows that held them. */
  messages: number;
  conversations: number;
  episodes: number;
  facts: number;
}

/**
 * Filters what an owner's memory already holds with today's privacy rules: a secret the rules of its
 * day let through (an older Nemori, a kind switched off then, a pattern added since) is replaced as it
 * would be at import — in messages (text, attachment names and captions, quoted replies), conversation
 * titles, episodes (title, summary, content, keywords, entities, the LLM's graph) and facts (every
 * version), whose keyword entries and vectors follow their new words. Then the old text is erased from
 * the data folder's files. Backups made before keep what they held. Messages are read first and written
 * last: what they held is what the episodes are searched for, so a run stopped part way (`signal`,
 * between two transactions) finds it in them again next time.
 */
export async function scrubSecrets(
  ctx: EngineContext,
  ownerId: string,
  o: { signal?: AbortSignal | undefined } = {},
): Promise<ScrubOutcome> {
  const rules = ctx.config.privacy;
  const out: ScrubOutcome = { secrets: 0, messages: 0, conversations: 0, episodes: 0, facts: 0 };
  if (!rules.enabled) return out;
  const read = ctx.store.read.privacy;
  const going = () => o.signal?.aborted !== true && ctx.store.isOpen;

  // What the messages held, to erase where episodes repeat it out of the sentence that made it one
  // ("… on wifi password and hunter2xyz"): held here only, never logged or returned. Not a short
  // one: a 4-digit code is also a year or a room number elsewhere.
  const found = new Map<string, string>();
  const seen = (secret: string, placeholder: string) => {
    const word = secret.replace(/^[^\p{L}\p{N}]+|[^\p{L}\p{N}]+$/gu, '');
    if (word.length >= 6) found.set(word.toLowerCase(), placeholder);
  };
  const messages: MessageWords[] = [];
  for (let after: string | null = null; going();) {
    const page = await read.messagePage(ownerId, after, MESSAGE_PAGE);
    if (page.length === 0) break;
    after = page.at(-1)!.id;
    for (const m of page) {
      const r = redactValue({ text: m.text, attachments: m.attachments, metadata: m.metadata }, rules, seen);
      out.secrets += r.redacted;
      if (r.redacted > 0) messages.push({ id: m.id, ...r.value });
    }
  }

  const titles = (await read.conversationTitles(ownerId)).flatMap((c) => {
    const r = redactText(c.title, rules, seen);
    out.secrets += r.redacted;
    return r.redacted > 0 ? [{ id: c.id, title: r.value }] : [];
  });
  const erase = erasing(found);

  const all = await read.episodeIds(ownerId);
  const trashed = new Set(all.flatMap((e) => (e.trashed ? [e.id] : [])));
  for (let i = 0; i < all.length && going(); i += EPISODE_BATCH) {
    const batch = all.slice(i, i + EPISODE_BATCH).map((e) => e.id);
    const changed = (await ctx.store.read.episodes.getMany(ownerId, batch)).flatMap((e) => {
      const words: EpisodeWords = {
        title: e.title,
        summary: e.summary,
        content: e.content,
        keywords: e.keywords,
        metadata: e.metadata,
        structuredData: e.structuredData,
      };
      const r = redactValue(words, rules);
      const copies = erase(r.value);
      out.secrets += r.redacted + copies.erased;
      return r.redacted + copies.erased > 0 ? [{ ...e, ...copies.value }] : [];
    });
    if (changed.length > 0) await rewriteEpisodes(ctx, ownerId, changed, trashed);
    out.episodes += changed.length;
  }

  if (going()) await scrubGraph(ctx, ownerId, rules, found, out);
  if (going()) await scrubFacts(ctx, ownerId, rules, erase, out);

  for (let i = 0; i < messages.length && going(); i += MESSAGE_PAGE) {
    const page = messages.slice(i, i + MESSAGE_PAGE);
    await ctx.store.transaction((r) => r.privacy.rewriteMessages(ownerId, page));
    out.messages += page.length;
  }
  if (titles.length > 0 && going()) {
    await ctx.store.transaction(async (r) => {
      for (const c of titles) await r.privacy.retitleConversation(ownerId, c.id, c.title);
    });
    out.conversations += titles.length;
  }

  // Rows rewritten keep their old text in table pages and the WAL until then.
  if (out.messages + out.conversations + out.episodes + out.facts > 0) await ctx.store.erase();
  return out;
}

/**
 * Facts with their words filtered, every version too: a fact named as a password keeps no value, and
 * copies of what the messages held go. Keyword entries follow; a vector is made again (or, without a
 * model, dropped until `nemori rebuild`). Facts are few: one transaction each.
 */
async function scrubFacts(
  ctx: EngineContext,
  ownerId: string,
  rules: PrivacyRules,
  erase: ReturnType<typeof erasing>,
  out: ScrubOutcome,
): Promise<void> {
  const read = ctx.store.read;
  for (let before: { at: Date; id: string } | undefined; ;) {
    const page = await read.facts.list(ownerId, { tiers: ['active', 'archived', 'trash'], limit: 1000, before });
    for (const f of page) {
      let replaced = 0;
      const clean = <T>(v: T): T => {
        const r = redactValue(v, rules);
        const copies = erase(r.value);
        replaced += r.redacted + copies.erased;
        return copies.value;
      };
      const words = clean<FactWords>({
        key: f.key,
        label: f.label,
        value: f.value,
        context: f.context,
        keywords: f.keywords,
        tags: f.tags,
      });
      const named = redactNamedSecret(words.key, words.value, rules);
      replaced += named.redacted;
      const versions = (await read.factVersions.list(ownerId, f.id)).flatMap((v) => {
        const before = replaced;
        const text = clean({ value: v.value, context: v.context });
        const value = redactNamedSecret(words.key, text.value, rules);
        replaced += value.redacted;
        return replaced > before ? [{ version: v.version, value: value.value, context: text.context }] : [];
      });
      if (replaced === 0) continue;
      const fact = { ...words, value: named.value };
      const vector = ctx.embedder && f.tier === 'active' ? (await ctx.embedder.embed([factEmbeddingText(fact)], 'passage'))[0]! : null;
      await ctx.store.transaction(async (r) => {
        if (fact.key !== f.key) fact.key = await freeKey(r, ownerId, f.id, parseKey(fact.key, f.entityType).key);
        await r.privacy.rewriteFact(ownerId, f.id, fact);
        for (const v of versions) await r.privacy.rewriteFactVersion(ownerId, f.id, v.version, v);
        await reindexFact(r, ownerId, f.id);
        await r.factVectors.remove(ownerId, [f.id]);
        if (vector && ctx.embedder) await r.factVectors.set(ownerId, f.id, ctx.embedder.modelId, vector);
      });
      out.secrets += replaced;
      out.facts++;
    }
    if (page.length < 1000) break;
    before = { at: page.at(-1)!.updatedAt, id: page.at(-1)!.id };
  }
}

/**
 * The entity graph an LLM drew from episodes, its names filtered: entities, their aliases (under the
 * key a name that came in filtered would have had) and relationships' predicates. A predicate is a
 * machine label ("HOLDS_EMP_204518"): the secrets the messages and the names held are looked for in
 * it as labels too. One transaction.
 */
async function scrubGraph(
  ctx: EngineContext,
  ownerId: string,
  rules: PrivacyRules,
  found: ReadonlyMap<string, string>,
  out: ScrubOutcome,
): Promise<void> {
  const g = await ctx.store.read.privacy.graphNames(ownerId);
  const secrets = new Map(found);
  const erase = erasing(found);
  let replaced = 0;
  const clean = (s: string): string | null => {
    const r = redactText(s, rules, (secret, placeholder) => secrets.set(secret, placeholder));
    const copies = erase(r.value);
    replaced += r.redacted + copies.erased;
    return r.redacted + copies.erased > 0 ? copies.value : null;
  };
  const entities = g.entities.flatMap((e) => {
    const name = clean(e.name);
    return name === null ? [] : [{ id: e.id, name }];
  });
  const aliases = g.aliases.flatMap((a) => {
    const alias = clean(a.alias);
    return alias === null ? [] : [{ was: a.key, key: entityKey(alias), entityId: a.entityId, alias }];
  });
  const labels = erasing(
    new Map(
      [...secrets].flatMap(([secret, placeholder]) => {
        const label = predicateKey(secret).toLowerCase();
        return label.length >= 6 ? [[label, predicateKey(placeholder)] as const] : [];
      }),
    ),
  );
  const predicates = g.predicates.flatMap((p) => {
    const r = labels(p.predicate);
    replaced += r.erased;
    return r.erased > 0 ? [{ id: p.id, predicate: r.value }] : [];
  });
  if (replaced === 0) return;
  await ctx.store.transaction((r) => r.privacy.renameGraph(ownerId, { entities, aliases, predicates }));
  out.secrets += replaced;
}

/**
 * The key a fact whose key held a secret takes: the filtered key, normalised as at entry, numbered on
 * ("…_2") when another fact has it already (two card numbers, one placeholder): both are kept apart, as
 * they were.
 */
async function freeKey(r: Repos, ownerId: string, id: string, key: string): Promise<string> {
  for (let n = 1; ; n++) {
    const candidate = n === 1 ? key : `${key}_${n}`;
    const holder = await r.facts.byKey(ownerId, candidate);
    if (!holder || holder.id === id) return candidate;
  }
}

/** Replaces every copy of the secrets found (any case, as a word or inside one) in every string of a value. */
function erasing(found: ReadonlyMap<string, string>): <T>(v: T) => { value: T; erased: number } {
  if (found.size === 0) return (v) => ({ value: v, erased: 0 });
  const escaped = [...found.keys()].sort((a, b) => b.length - a.length).map((w) => w.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));
  const copy = new RegExp(escaped.join('|'), 'giu');
  return <T>(v: T) => {
    let erased = 0;
    const value = mapStrings(v, (s) =>
      s.replace(copy, (m) => {
        erased++;
        return found.get(m.toLowerCase())!;
      }),
    );
    return { value, erased };
  };
}

/**
 * Episodes with their words filtered: keyword entries and vectors from the new words. One in the trash
 * has no live entries; its parked ones go, and it counts as changed there, so restoring it indexes it
 * afresh. An episode whose vector cannot be made again now (no model) loses it until `nemori rebuild`.
 */
async function rewriteEpisodes(
  ctx: EngineContext,
  ownerId: string,
  episodes: readonly Episode[],
  inTrash: ReadonlySet<string>,
): Promise<void> {
  const live = episodes.filter((e) => !inTrash.has(e.id));
  const trashed = episodes.filter((e) => inTrash.has(e.id)).map((e) => e.id);
  const embedded = ctx.embedder ? live.filter((e) => e.embeddingModel !== null) : [];
  const vectors = embedded.length
    ? await ctx.embedder!.embed(
        embedded.map((e) => embeddingText(e)),
        'passage',
      )
    : [];
  await ctx.store.transaction(async (r) => {
    await r.episodes.reword(
      ownerId,
      // One the heuristic told and nobody edited is told again from its filtered messages next (by the
      // retelling that follows in `rebuild` and in the background): its title then names no placeholder.
      episodes.map((e) => ({
        id: e.id,
        words: e,
        ...(e.builder === 'heuristic' && e.updatedAt.getTime() === e.createdAt.getTime() ? { version: 'heuristic-0' } : {}),
      })),
      null,
    );
    await unindexEpisodes(
      r,
      ownerId,
      live.map((e) => e.id),
    );
    const rows = embedded.map((e, k) => ({ episodeId: e.id, vector: vectors[k]! }));
    if (ctx.embedder && rows.length) await r.vectors.ensureIndex({ modelId: ctx.embedder.modelId, dimensions: ctx.embedder.dimensions });
    await indexEpisodes(r, ownerId, live, rows.length ? { modelId: ctx.embedder!.modelId, rows } : null, ctx.config.retrieval.bm25);
    await r.bm25.dropParked(ownerId, trashed);
    for (const id of trashed) await r.episodes.update(ownerId, id, {}, ctx.clock.now());
  });
}

/** Where the store records the rules its memory was last filtered with. */
const FILTERED_WITH = 'privacy.filteredWith';

/**
 * Filters every owner's stored memory again (`scrubSecrets`) when the rules changed since it last was
 * (a newer Nemori's shapes, kinds switched on, patterns added); a store filtered with today's rules is
 * left alone. Returns the owners' outcomes summed, or null when nothing had to be read.
 */
export async function scrubWithNewRules(ctx: EngineContext, o: { signal?: AbortSignal | undefined } = {}): Promise<ScrubOutcome | null> {
  const rules = ctx.config.privacy;
  if (!rules.enabled) return null;
  const fingerprint = createHash('sha256')
    .update(JSON.stringify({ shapes: SECRET_SHAPES_GENERATION, rules }))
    .digest('hex');
  if ((await ctx.store.read.settings.get(FILTERED_WITH))?.fingerprint === fingerprint) return null;
  const sum: ScrubOutcome = { secrets: 0, messages: 0, conversations: 0, episodes: 0, facts: 0 };
  for (const ownerId of await ctx.store.read.episodes.owners()) {
    const one = await scrubSecrets(ctx, ownerId, o);
    for (const k of Object.keys(sum) as (keyof ScrubOutcome)[]) sum[k] += one[k];
  }
  if (o.signal?.aborted !== true && ctx.store.isOpen) await ctx.store.transaction((r) => r.settings.put(FILTERED_WITH, { fingerprint }));
  return sum;
}
