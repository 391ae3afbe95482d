/**
 * Journal rows: each episode reduced to what its card shows, under a heading for each local day.
 * Pure, tested in Node.
 */
import type { EpisodeView } from '../api/types';
import { dayKey } from '../lib/dates';

export interface Entry {
  id: string;
  title: string;
  summary: string;
  start: string;
  end: string;
  utcOffsetMin: number;
  importance: number;
  messageCount: number;
  participants: string[];
  day: string;
  /** A live conversation's provisional episode (`processingStatus: open`): it grows as turns arrive. */
  ongoing: boolean;
}

export type Row = { kind: 'day'; key: string; day: string; count: number } | { kind: 'episode'; key: string; entry: Entry };

export function toEntry(e: EpisodeView): Entry {
  return {
    id: e.id,
    title: e.title,
    summary: e.summary.length > 400 ? `${e.summary.slice(0, 400)}…` : e.summary,
    start: e.start,
    end: e.end,
    utcOffsetMin: e.utcOffsetMin,
    importance: e.importance,
    messageCount: e.metadata.messageCount || e.messageIds.length,
    participants: e.metadata.participants.slice(0, 6),
    day: dayKey(e.start, e.utcOffsetMin),
    ongoing: e.processingStatus === 'open',
  };
}

/** The entries of rows, in order. */
export function entriesOf(rows: readonly Row[]): Entry[] {
  return rows.flatMap((r) => (r.kind === 'episode' ? [r.entry] : []));
}

/** Whether `a` comes after `b` in the journal (newest first: start, then id, descending — listEpisodes' order). */
export function isOlder(a: Entry, b: Entry): boolean {
  const at = Date.parse(a.start);
  const bt = Date.parse(b.start);
  return at < bt || (at === bt && a.id < b.id);
}

/**
 * The journal with its newest page read again: `head` (listEpisodes' first page; `more`: it has a next
 * page) replaces every loaded entry down to its last one, and the older loaded entries stay. `more` false:
 * the head is everything. Returns null when nothing changed.
 */
export function mergeHead(current: readonly Entry[], head: readonly Entry[], more: boolean): { entries: Entry[]; kept: number } | null {
  const last = head.at(-1);
  const kept = more && last ? current.filter((e) => isOlder(e, last)) : [];
  const entries = [...head, ...kept];
  return JSON.stringify(entries) === JSON.stringify(current) ? null : { entries, kept: kept.length };
}

/** Appends entries to rows, opening a day heading whenever the local day changes. */
export function appendRows(rows: readonly Row[], entries: readonly Entry[]): Row[] {
  const out = rows.slice();
  let headerIndex = -1;
  for (let i = out.length - 1; i >= 0; i--) {
    if (out[i]!.kind === 'day') {
      headerIndex = i;
      break;
    }
  }
  for (const entry of entries) {
    const header = headerIndex >= 0 ? (out[headerIndex] as Row & { kind: 'day' }) : null;
    if (header && header.day === entry.day) {
      out[headerIndex] = { ...header, count: header.count + 1 };
    } else {
      headerIndex = out.length;
      out.push({ kind: 'day', key: `day-${entry.day}`, day: entry.day, count: 1 });
    }
    out.push({ kind: 'episode', key: entry.id, entry });
  }
  return out;
}
