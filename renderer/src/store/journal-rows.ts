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
  };
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
