import type { StoredMessage } from '../domain/conversation.js';
import { toLocal } from './describe.js';

/** A message as episode text: attachments are told, not dropped ("[shares a photo: a dog on a beach]"). */
export function messageText(m: StoredMessage): string {
  const media = m.attachments.map((a) => {
    const what = a.kind === 'image' ? 'a photo' : a.kind === 'file' ? 'a file' : `a ${a.kind}`;
    const about = a.caption ?? a.name;
    return about ? `[shares ${what}: ${about}]` : `[shares ${what}]`;
  });
  return [m.text, ...media].filter(Boolean).join(' ');
}

const weekday = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'];

/** "Mon 2023-05-08 09:04" in the sender's own time zone. */
export function localStamp(m: Pick<StoredMessage, 'sentAt' | 'utcOffsetMin'>): string {
  const d = toLocal(m.sentAt, m.utcOffsetMin);
  return `${weekday[d.getUTCDay()]} ${d.toISOString().slice(0, 16).replace('T', ' ')}`;
}

/** Whitespace collapsed and cut to `max` characters with an ellipsis. */
export function shorten(text: string, max: number): string {
  const t = text.replace(/\s+/g, ' ').trim();
  return t.length > max ? `${t.slice(0, max - 1)}…` : t;
}
