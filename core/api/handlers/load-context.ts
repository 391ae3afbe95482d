import type { z } from 'zod';
import type { EngineContext } from '../../context/engine-context.js';
import type { StoredMessage } from '../../domain/conversation.js';
import { describeSpan } from '../../text/describe.js';
import { tokenize } from '../../text/tokenize.js';
import { estimateTokens } from '../../text/fact-text.js';
import type { ContextItem, LoadContextInput, LoadContextOutput } from '../companion-contract.js';
import type { OperationName, OpInput, OpOutput } from '../contract.js';
import type { EpisodeView } from '../views.js';
import type { Handlers, HandlerEnv } from '../handler.js';

/** A validated call of another operation: companion operations are built from the others, not beside them. */
export type CallOp = <K extends OperationName>(name: K, input: OpInput<K>) => Promise<OpOutput<K>>;

/**
 * `loadContext`: what a companion should know when a conversation starts, as one Markdown block within
 * a token budget. Built from the other operations — summarizeKnowledge ("What I know about you"),
 * listEpisodes ("Recently"), search ("Related to …") — plus the exact messages that match the query,
 * from the episodes found and from the conversation still going on (messages no episode holds yet).
 *
 * Tokens are counted with the knowledge store's estimate (`estimateTokens`: ~4 Latin characters or one
 * CJK character per token, about 1.3 per English word), line by line, so the block never exceeds the
 * budget. The budget is shared out before it is filled: with a query, half for "Related", a quarter
 * each for the other two; without one, half each for facts and recent episodes. What a section leaves
 * unused goes to the next; what is left at the end takes further items in the same order.
 */

const RECENT = 8;
const RELATED = 10;
const PENDING = 5;
const SUMMARY_CHARS = 280;

const shorten = (s: string, max: number) => {
  const flat = s.replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max - 1).trimEnd()}…` : flat;
};
const at = (iso: string, offset: number) => describeSpan(new Date(iso), new Date(iso), offset);
const spanOf = (e: { start: string; end: string; utcOffsetMin: number }) =>
  describeSpan(new Date(e.start), new Date(e.end), e.utcOffsetMin);

/** A message as loadContext quotes it. */
function quoted(m: StoredMessage) {
  const sentAt = m.sentAt.toISOString();
  return {
    id: m.id,
    conversationId: m.conversationId,
    speaker: m.speaker,
    text: m.text,
    sentAt,
    utcOffsetMin: m.utcOffsetMin,
    when: at(sentAt, m.utcOffsetMin),
  };
}
const quoteLine = (m: ReturnType<typeof quoted>, indent = '  ') => `${indent}> ${m.speaker}, ${m.when}: “${shorten(m.text, 400)}”`;

/** How many of the query's terms a message says (0: it does not match). */
function matcher(query: string): (text: string) => number {
  const terms = new Set(tokenize(query));
  return (text) => (terms.size === 0 ? 0 : new Set(tokenize(text).filter((t) => terms.has(t))).size);
}

interface Block<T> {
  lines: string[];
  cost: number;
  item: T;
}
const block = <T>(lines: string[], item: T): Block<T> => ({ lines, item, cost: lines.reduce((n, l) => n + estimateTokens(l), 0) });

interface Section<T> {
  header: string;
  blocks: Block<T>[];
  chosen: Set<number>;
  used: number;
  /** Leaves out a candidate another section already shows. */
  skip: (item: T) => boolean;
}

/**
 * Takes the section's candidates in order while they fit `allowance` (a section's best candidate may
 * go over it, up to `limit`, rather than leave the section empty); returns the tokens spent.
 */
function fill<T>(s: Section<T>, allowance: number, limit = allowance): number {
  let spent = 0;
  s.blocks.forEach((b, n) => {
    if (s.chosen.has(n) || s.skip(b.item)) return;
    const cost = b.cost + (s.chosen.size === 0 ? estimateTokens(s.header) : 0);
    if (spent + cost > (s.chosen.size === 0 ? Math.max(allowance, limit) : allowance)) return;
    s.chosen.add(n);
    spent += cost;
  });
  s.used += spent;
  return spent;
}

/** Candidates neither in this section nor shown by another. */
const left = <T>(s: Section<T>) => s.blocks.filter((b, n) => !s.chosen.has(n) && !s.skip(b.item)).length;
const picked = <T>(s: Section<T>) => s.blocks.filter((_, n) => s.chosen.has(n));
const render = <T>(s: Section<T>) => (s.chosen.size ? [s.header, ...picked(s).flatMap((b) => b.lines)] : []);

type AboutItem = { key: string | null };
type RelatedItem = ContextItem;

export async function loadContext(ctx: EngineContext, op: CallOp, i: z.infer<typeof LoadContextInput>): Promise<LoadContextOutput> {
  const now = i.now ?? ctx.clock.now();
  const query = i.query ? i.query : null;
  const warnings: string[] = [];

  // Candidates, most useful first in each section.
  const [recent, about, found] = await Promise.all([
    op('listEpisodes', { ownerId: i.ownerId, until: now, limit: RECENT }),
    op('summarizeKnowledge', { ownerId: i.ownerId, tokenLimit: i.budgetTokens }),
    query ? op('search', { ownerId: i.ownerId, query, limit: RELATED, markAccessed: true }) : null,
  ]);
  if (found) warnings.push(...found.warnings);
  const offset = recent.episodes[0]?.utcOffsetMin ?? -now.getTimezoneOffset();

  // "What I know about you": summarizeKnowledge's lines (most important, most certain first); an entity
  // type heading goes with the fact under it, and each fact line is its key.
  const aboutBlocks: Block<AboutItem>[] = [];
  let heading: string | null = null;
  let facts = 0;
  let inRelationships = false;
  for (const line of about.summary.split('\n').filter(Boolean)) {
    if (!line.startsWith('- ')) {
      heading = line;
      inRelationships ||= line === 'relationships:';
      continue;
    }
    const key = inRelationships ? null : (about.keys[facts++] ?? null);
    aboutBlocks.push(block(heading ? [`**${heading.replace(/:$/, '')}**`, line] : [line], { key }));
    heading = null;
  }

  const recentBlocks = recent.episodes.map((e) => block([`- ${spanOf(e)} — **${e.title}**: ${shorten(e.summary, SUMMARY_CHARS)}`], e));

  const relatedBlocks: Block<RelatedItem>[] = [];
  if (query) {
    const matches = matcher(query);
    const episodeHits = (found?.results ?? []).flatMap((r) => (r.kind === 'episode' ? [r] : []));
    const sources = await ctx.store.read.conversations.messagesByIds(
      i.ownerId,
      episodeHits.flatMap((r) => r.sources.map((s) => s.id)),
    );
    const flat = (t: string) => t.replace(/\s+/g, ' ').trim();
    // The messages that say what the query asks, unless the summary already quotes them.
    const byEpisode = (ids: Set<string>, summary: string) =>
      sources
        .filter((m) => ids.has(m.id) && !flat(summary).includes(flat(m.text)))
        .map((m) => ({ m, n: matches(m.text) }))
        .filter((x) => x.n > 0)
        .sort((a, b) => b.n - a.n)
        .slice(0, 2)
        .sort((a, b) => a.m.sentAt.getTime() - b.m.sentAt.getTime())
        .map((x) => quoted(x.m));
    for (const r of found?.results ?? []) {
      if (r.kind === 'episode') {
        const item: RelatedItem = {
          kind: 'episode',
          id: r.id,
          title: r.title,
          summary: r.summary,
          start: r.start,
          end: r.end,
          utcOffsetMin: r.utcOffsetMin,
          when: spanOf(r),
          score: r.score,
          messages: byEpisode(new Set(r.sources.map((s) => s.id)), r.summary),
        };
        relatedBlocks.push(
          block([`- ${item.when} — **${r.title}**: ${shorten(r.summary, SUMMARY_CHARS)}`, ...item.messages.map((m) => quoteLine(m))], item),
        );
      } else {
        const item: RelatedItem = {
          kind: 'fact',
          id: r.id,
          key: r.key,
          title: r.title,
          value: r.summary,
          version: r.version,
          updatedAt: r.updatedAt,
          score: r.score,
        };
        relatedBlocks.push(
          block([`- Fact \`${r.key}\` (v${r.version}, as of ${at(r.updatedAt, offset)}): ${shorten(r.text, SUMMARY_CHARS)}`], item),
        );
      }
    }
    // The conversation going on now: its messages reach episodes only after they are built.
    const pending: { m: StoredMessage; n: number }[] = [];
    for (const conversationId of await ctx.store.read.conversations.withPendingMessages(i.ownerId)) {
      for (const m of await ctx.store.read.conversations.pendingMessages(i.ownerId, conversationId)) {
        const n = m.sentAt <= now ? matches(m.text) : 0;
        if (n > 0) pending.push({ m, n });
      }
    }
    pending.sort((a, b) => b.n - a.n || b.m.sentAt.getTime() - a.m.sentAt.getTime());
    for (const { m, n } of pending.slice(0, PENDING)) {
      const item: RelatedItem = { kind: 'message', ...quoted(m), score: n };
      relatedBlocks.push(block([`- Just said: ${item.speaker}, ${item.when}: “${shorten(item.text, 400)}”`], item));
    }
  }

  // A fact or an episode is shown once: where it was taken first.
  const relatedSection: Section<RelatedItem> = {
    header: `### Related to “${shorten(query ?? '', 80)}”`,
    blocks: relatedBlocks,
    chosen: new Set(),
    used: 0,
    skip: (x) =>
      (x.kind === 'fact' && picked(aboutSection).some((b) => b.item.key === x.key)) ||
      (x.kind === 'episode' && picked(recentSection).some((b) => b.item.id === x.id)),
  };
  const inRelated = (kind: 'fact' | 'episode', id: string) =>
    picked(relatedSection).some((b) => b.item.kind === kind && (b.item.kind === 'fact' ? b.item.key : b.item.id) === id);
  const aboutSection: Section<AboutItem> = {
    header: '### What I know about you',
    blocks: aboutBlocks,
    chosen: new Set(),
    used: 0,
    skip: (x) => x.key !== null && inRelated('fact', x.key),
  };
  const recentSection: Section<EpisodeView> = {
    header: '### Recently',
    blocks: recentBlocks,
    chosen: new Set(),
    used: 0,
    skip: (e) => inRelated('episode', e.id),
  };

  const title = `## What I remember — now is ${at(now.toISOString(), offset)}`;
  const available = Math.max(0, i.budgetTokens - estimateTokens(title));
  const order = (query ? [relatedSection, aboutSection, recentSection] : [aboutSection, recentSection]) as unknown as Section<unknown>[];
  const shares = query ? [0.5, 0.25, 0.25] : [0.5, 0.5];
  const spentSoFar = () => order.reduce((sum, x) => sum + x.used, 0);
  let carry = 0;
  order.forEach((s, n) => {
    const allowance = Math.floor(available * shares[n]!) + carry;
    carry = Math.max(0, allowance - fill(s, allowance, available - spentSoFar()));
  });
  for (const s of order) fill(s, available - spentSoFar());

  const body = [...render(aboutSection), ...render(recentSection), ...render(relatedSection)];
  const empty = aboutBlocks.length + recentBlocks.length + relatedBlocks.length === 0;
  const note = empty ? 'Nothing remembered yet.' : body.length === 0 ? 'Nothing fits the budget.' : null;
  const lines = [title, ...(note && estimateTokens(note) <= available ? [note] : []), ...body];
  const markdown = lines.join('\n');
  return {
    markdown,
    tokens: lines.reduce((sum, l) => sum + estimateTokens(l), 0),
    budgetTokens: i.budgetTokens,
    now: now.toISOString(),
    query,
    sections: {
      about: {
        text: picked(aboutSection)
          .flatMap((b) => b.lines)
          .join('\n'),
        keys: picked(aboutSection).flatMap((b) => (b.item.key ? [b.item.key] : [])),
      },
      recent: picked(recentSection).map(({ item: e }) => ({
        id: e.id,
        title: e.title,
        summary: e.summary,
        start: e.start,
        end: e.end,
        utcOffsetMin: e.utcOffsetMin,
        when: spanOf(e),
      })),
      related: picked(relatedSection).map((b) => b.item),
    },
    left: { about: left(aboutSection), recent: left(recentSection), related: left(relatedSection) },
    warnings: [...new Set(warnings)],
  };
}

export function loadContextHandlers({ ctx }: HandlerEnv, op: CallOp): Handlers<'loadContext'> {
  return {
    loadContext: (i) => loadContext(ctx, op, i),
  };
}
