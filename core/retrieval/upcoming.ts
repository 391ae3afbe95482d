import type { EngineContext } from '../context/engine-context.js';
import type { StoredMessage } from '../domain/conversation.js';
import { localDate } from '../text/describe.js';
import { findTimeMentions, withTimeNotes } from '../text/relative-time.js';

/** A day ahead that the person spoke of, and what was said of it. */
export interface Upcoming {
  /** The first day it names from today on (YYYY-MM-DD, the person's calendar). */
  day: string;
  message: StoredMessage;
  /** The message with the days its time words name written after them, as episodes keep it. */
  text: string;
}

const DAY_MS = 86_400_000;

/**
 * What the person said of the days ahead (`o.days`, today included), in the `o.lookbackDays` before
 * `now`: "my final interview is on Friday at 10" said on Monday is Friday's on Thursday, so a
 * companion opening a conversation can wish them luck. Found through the days episodes keep of their
 * time words, then read again in the messages that said them, and in the turns `o.unbuilt` just said
 * that no episode holds yet; soonest first, then the latest said.
 */
export async function upcomingMentions(
  ctx: EngineContext,
  ownerId: string,
  now: Date,
  utcOffsetMin: number,
  o: { days: number; lookbackDays: number; limit: number; unbuilt: readonly StoredMessage[] },
): Promise<Upcoming[]> {
  const from = localDate(now, utcOffsetMin);
  const to = localDate(new Date(now.getTime() + o.days * DAY_MS), utcOffsetMin);
  const read = ctx.store.read;
  const ids = await read.episodes.namingDays(
    ownerId,
    { since: new Date(now.getTime() - o.lookbackDays * DAY_MS), until: now },
    { from, to },
    50,
  );
  const out: Upcoming[] = [];
  // Turns just said are in no episode yet: they are read as they are.
  const messages = new Map([...(await read.conversations.messagesOfEpisodes(ownerId, ids)), ...o.unbuilt].map((m) => [m.id, m]));
  for (const m of messages.values()) {
    if (m.sentAt > now) continue;
    const mentions = findTimeMentions(m.text, m.sentAt, m.utcOffsetMin);
    const ahead = mentions.filter((x) => x.granularity === 'day' && x.start <= to && (x.end ?? x.start) >= from);
    if (ahead.length === 0) continue;
    const day = ahead.map((x) => (x.start < from ? from : x.start)).sort()[0]!;
    out.push({ day, message: m, text: withTimeNotes(m.text, mentions) });
  }
  out.sort((a, b) => a.day.localeCompare(b.day) || b.message.sentAt.getTime() - a.message.sentAt.getTime());
  return out.slice(0, o.limit);
}
