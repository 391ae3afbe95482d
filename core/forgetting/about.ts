import type { EngineContext } from '../context/engine-context.js';
import { NemoriError } from '../domain/errors.js';
import { tokenize } from '../text/tokenize.js';
import type { MemoryKind, Tier } from './decay.js';
import { activeTargets } from './targets.js';

/**
 * "Delete everything about X": by an entity's name or a keyword, for the person.
 * Removes every memory that mentions X (any tier, trash included), every memory derived from a
 * message that mentions X, their links, index entries and vectors; the source messages keep only
 * their import key (so re-importing the same export does not bring X back) and conversation titles
 * and participant lists lose X. A dry run lists what would go.
 */

// Scripts written without spaces: a name is matched as a substring there, not as a word.
const UNSPACED = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}\p{Script=Thai}]/u;

/**
 * Does `text` mention `about`? The database pre-selects texts containing it case-insensitively; this
 * confirms it is the word and not part of another: "Tom" is in "Tom's bike" but not in "tomorrow",
 * "run" in "running" (same stem) but not in "brunch". For Chinese, Japanese, Korean or Thai, the
 * substring is the match (their word boundaries depend on context).
 */
export function mentionMatcher(about: string): (text: string) => boolean {
  const needle = about.normalize('NFKC').toLowerCase();
  if (UNSPACED.test(needle)) return (text) => text.normalize('NFKC').toLowerCase().includes(needle);
  const terms = [...new Set(tokenize(about))];
  if (terms.length === 0) {
    throw new NemoriError('INVALID_INPUT', `“${about}” is only common words; name a person, place or keyword to forget`);
  }
  return (text) => {
    if (!text.normalize('NFKC').toLowerCase().includes(needle)) return false;
    const have = new Set(tokenize(text));
    return terms.every((t) => have.has(t));
  };
}

export interface ForgetAboutResult {
  about: string;
  dryRun: boolean;
  memories: { kind: MemoryKind; id: string; title: string; tier: Tier }[];
  /** Source messages whose text goes (those mentioning X and those of the memories above). */
  messages: number;
  conversations: number;
  /** The deleted text was physically removed from the store's files (not a dry run). */
  erased: boolean;
}

export async function forgetAbout(
  ctx: EngineContext,
  ownerId: string,
  about: string,
  o: { dryRun?: boolean } = {},
): Promise<ForgetAboutResult> {
  const needle = about.trim();
  if (!needle) throw new NemoriError('INVALID_INPUT', 'say what to forget: a name or a keyword');
  const matches = mentionMatcher(needle);
  const read = ctx.store.read.forgetting;

  const messages = (await read.messagesContaining(ownerId, needle)).filter((m) => matches(`${m.speaker}\n${m.content}`));
  const sourceEpisodes = [...new Set(messages.flatMap((m) => (m.episodeId ? [m.episodeId] : [])))];
  const memories: ForgetAboutResult['memories'] = [];
  const byTarget = new Map<MemoryKind, string[]>();
  for (const target of activeTargets()) {
    const found = await target.mentioning(ctx, ownerId, needle, matches, sourceEpisodes);
    memories.push(...found.map((m) => ({ kind: target.kind, ...m })));
    byTarget.set(
      target.kind,
      found.map((m) => m.id),
    );
  }
  const conversations = (await read.conversationsContaining(ownerId, needle)).filter((c) =>
    matches([c.title ?? '', ...c.participants].join('\n')),
  );
  const episodeIds = byTarget.get('episode') ?? [];
  const linked = await read.messageCountOfEpisodes(ownerId, episodeIds);
  const unlinked = messages.filter((m) => !m.episodeId || !episodeIds.includes(m.episodeId));
  const result: ForgetAboutResult = {
    about: needle,
    dryRun: Boolean(o.dryRun),
    memories,
    messages: linked + unlinked.length,
    conversations: conversations.length,
    erased: false,
  };
  if (o.dryRun) return result;

  // Memories first (each batch one transaction with its index entries and vectors), then the raw
  // messages and conversations left; running the command again finishes anything a crash interrupted.
  for (const target of activeTargets()) await target.erase(ctx, ownerId, byTarget.get(target.kind) ?? []);
  await ctx.store.transaction(async (r) => {
    await r.forgetting.redactMessages(ownerId, { messageIds: unlinked.map((m) => m.id) });
    for (const c of conversations) {
      const title = c.title && matches(c.title) ? null : c.title;
      await r.forgetting.redactConversation(
        ownerId,
        c.id,
        title,
        c.participants.filter((p) => !matches(p)),
      );
    }
  });
  // Deleted rows linger in table pages and the WAL: erase them now, so the text is really gone.
  await ctx.store.erase();
  return { ...result, erased: true };
}
