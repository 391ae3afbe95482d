import type { StoredMessage } from '../domain/conversation.js';
import { toLocal, withArticle } from './describe.js';

/**
 * How much of one message an episode tells (and so indexes, embeds and hands to the LLM). A pasted
 * log or book in one message would otherwise make one episode of megabytes, slow to build and to
 * search, and drown every other word of it. The message itself is stored and shown whole.
 */
export const MAX_TOLD_MESSAGE_CHARS = 20_000;

/** At most `max` characters of `text`, never ending between the halves of a surrogate pair. */
function head(text: string, max: number): string {
  const code = text.charCodeAt(max - 1);
  return text.slice(0, code >= 0xd800 && code <= 0xdbff ? max - 1 : max);
}

/**
 * The words phones and chat exports make file names of ("IMG-20240310-WA0001.jpg",
 * "00000012-PHOTO-2024-10-27-03-30-45.jpg", "photo_1@10-02-2024_09-12-00.jpg", "Screen Shot … at 8.01.00 PM").
 */
const MADE_UP_NAME_WORDS = new Set([
  ...['img', 'image', 'photo', 'pic', 'picture', 'mvimg', 'pxl', 'dsc', 'dscn', 'dcim', 'screenshot', 'screen', 'shot'],
  ...['vid', 'video', 'audio', 'voice', 'ptt', 'aud', 'stk', 'sticker', 'doc', 'file', 'attachment', 'wa', 'at', 'am', 'pm'],
]);

/** Whether a file's name says something a person chose ("west-lake.jpg", "西湖.jpg"), not one a device made up of a counter and a time. */
function namedByAPerson(name: string): boolean {
  const stem = name.replace(/\.[\p{L}\d]{1,5}$/u, '');
  return (stem.match(/\p{L}+/gu) ?? []).some((w) => !MADE_UP_NAME_WORDS.has(w.toLowerCase()));
}

/**
 * A message as episode text: attachments are told, not dropped ("[shares a photo: a dog on a beach]",
 * by the caption, else the file's name when a person gave it one); a very long message is told up to
 * MAX_TOLD_MESSAGE_CHARS, saying how much is left out.
 */
export function messageText(m: StoredMessage): string {
  const media = m.attachments.map((a) => {
    const what = withArticle(a.kind === 'image' ? 'photo' : a.kind === 'other' ? 'attachment' : a.kind);
    const about = a.caption ?? (a.name && namedByAPerson(a.name) ? a.name : undefined);
    return about ? `[shares ${what}: ${about}]` : `[shares ${what}]`;
  });
  const text =
    m.text.length > MAX_TOLD_MESSAGE_CHARS
      ? `${head(m.text, MAX_TOLD_MESSAGE_CHARS)}… [${m.text.length - head(m.text, MAX_TOLD_MESSAGE_CHARS).length} more characters in the message]`
      : m.text;
  return [text, ...media].filter(Boolean).join(' ');
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
