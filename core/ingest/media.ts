import type { Attachment } from '../domain/conversation.js';

/** Attachment kind from a MIME type or, failing that, a file name's extension. */
const BY_EXTENSION: Record<string, Attachment['kind']> = {
  jpg: 'image',
  jpeg: 'image',
  png: 'image',
  gif: 'image',
  webp: 'image',
  heic: 'image',
  bmp: 'image',
  svg: 'image',
  tiff: 'image',
  mp4: 'video',
  mov: 'video',
  webm: 'video',
  mkv: 'video',
  avi: 'video',
  m4v: 'video',
  mp3: 'audio',
  ogg: 'audio',
  oga: 'audio',
  opus: 'audio',
  m4a: 'audio',
  wav: 'audio',
  aac: 'audio',
  flac: 'audio',
  amr: 'audio',
  tgs: 'sticker',
};

export function mediaKind(o: { mimeType?: string | null; name?: string | null }): Attachment['kind'] {
  const mime = o.mimeType?.toLowerCase() ?? '';
  if (mime.startsWith('image/')) return 'image';
  if (mime.startsWith('video/')) return 'video';
  if (mime.startsWith('audio/')) return 'audio';
  const ext = /\.([a-z0-9]+)(?:[?#].*)?$/i.exec(o.name ?? '')?.[1]?.toLowerCase();
  return (ext && BY_EXTENSION[ext]) || 'file';
}

/** An attachment with only the fields that are known (the schema treats absent and undefined alike, JSON does not). */
export function attachment(a: {
  kind: Attachment['kind'];
  name?: string | null;
  uri?: string | null;
  mimeType?: string | null;
  caption?: string | null;
}): Attachment {
  const out: Attachment = { kind: a.kind };
  if (a.name) out.name = a.name;
  if (a.uri) out.uri = a.uri;
  if (a.mimeType) out.mimeType = a.mimeType;
  if (a.caption) out.caption = a.caption;
  return out;
}
