import path from 'node:path';
import { z } from 'zod';
import { IncomingConversation, type Attachment, type IncomingMessage } from '../domain/conversation.js';
import { jsonFileWith, type ImportFormat, type ReadContext } from './import-format.js';
import { checkJsonMessage, fileSource, shapeError, valueError, walkMessages } from './json-stream.js';
import { attachment, mediaKind } from './media.js';
import { partIsFull } from './parts.js';
import { importTimeZone, instantOf, timeField } from './time-shapes.js';

/**
 * DiscordChatExporter (Tyrrrz) JSON: one file per channel or DM, `{guild, channel, messages}`. Discord
 * has no export of its own for messages; this tool is what people use.
 */

/** Message types that are something a person wrote; the rest are calls, pins, joins, renames, boosts… */
const SPEECH = new Set(['Default', 'Reply']);

const Message = z.looseObject({
  id: z.string().min(1),
  type: z.string(),
  timestamp: timeField(),
  timestampEdited: timeField().nullish(),
  content: z.string().nullish(),
  author: z.looseObject({
    id: z.string().nullish(),
    name: z.string().min(1),
    nickname: z.string().nullish(),
    isBot: z.boolean().nullish(),
  }),
  attachments: z
    .array(
      z.looseObject({
        id: z.string().nullish(),
        url: z.string().nullish(),
        fileName: z.string().nullish(),
        fileSizeBytes: z.number().nullish(),
      }),
    )
    .nullish(),
  stickers: z.array(z.looseObject({ name: z.string().nullish(), sourceUrl: z.string().nullish() })).nullish(),
  embeds: z.array(z.looseObject({ title: z.string().nullish(), url: z.string().nullish(), description: z.string().nullish() })).nullish(),
  reference: z.looseObject({ messageId: z.string().nullish() }).nullish(),
  isPinned: z.boolean().nullish(),
});
type Message = z.infer<typeof Message>;

const Guild = z.looseObject({ id: z.string().nullish(), name: z.string().nullish() });
const Channel = z.looseObject({
  id: z.string().min(1),
  name: z.string().nullish(),
  type: z.string().nullish(),
  category: z.string().nullish(),
  topic: z.string().nullish(),
});

/** With `--media`, the exporter downloads files next to the JSON and writes relative, URL-encoded paths. */
function mediaUri(url: string | null | undefined, file: string): string | undefined {
  if (!url) return undefined;
  if (/^[a-z][a-z0-9+.-]*:/i.test(url) || path.isAbsolute(url)) return url;
  let decoded = url;
  try {
    decoded = decodeURIComponent(url);
  } catch {
    // A literal % in a file name: keep the path as written.
  }
  return path.resolve(path.dirname(file), decoded);
}

function attachmentsOf(m: Message, file: string): Attachment[] {
  const out: Attachment[] = [];
  for (const a of m.attachments ?? [])
    out.push(attachment({ kind: mediaKind({ name: a.fileName ?? a.url }), name: a.fileName, uri: mediaUri(a.url, file) }));
  for (const s of m.stickers ?? []) out.push(attachment({ kind: 'sticker', name: s.name, uri: mediaUri(s.sourceUrl, file) }));
  // A link someone posted shows as an embed; a bot's embed-only message is its whole content.
  for (const e of m.embeds ?? []) if (e.url) out.push(attachment({ kind: 'link', uri: e.url, caption: e.title ?? e.description }));
  return out;
}

async function* readDiscord(file: string, ctx: ReadContext): AsyncGenerator<IncomingConversation> {
  const timeZone = importTimeZone(ctx);
  const src = fileSource(file);
  let guild: z.infer<typeof Guild> | null = null;
  let channel: z.infer<typeof Channel> | null = null;
  let messages: IncomingMessage[] = [];
  let skipped = 0;
  let parts = 0;
  const found = { messages: false };
  for await (const ev of walkMessages(src, found)) {
    const [top, index] = ev.path;
    if (top === 'guild') {
      const g = Guild.safeParse(ev.value);
      if (!g.success) throw await shapeError(src, ['guild'], 'guild', g.error);
      guild = g.data;
    } else if (top === 'channel') {
      const c = Channel.safeParse(ev.value);
      if (!c.success) throw await shapeError(src, ['channel'], 'channel', c.error);
      channel = c.data;
    } else if (top === 'messages' && typeof index === 'number') {
      const parsed = Message.safeParse(ev.value);
      if (!parsed.success) throw await shapeError(src, ev.path, `message ${index + 1}`, parsed.error);
      const m = parsed.data;
      const attachments = attachmentsOf(m, file);
      const text = m.content ?? '';
      if (!SPEECH.has(m.type) || (!text.trim() && attachments.length === 0)) {
        skipped++;
        continue;
      }
      // DiscordChatExporter writes times in the exporting computer's zone, with its offset.
      const { at, utcOffsetMin } = instantOf(m.timestamp, { timeZone }).instant;
      const metadata: Record<string, unknown> = { authorName: m.author.name };
      if (m.author.id) metadata.authorId = m.author.id;
      if (m.author.isBot) metadata.bot = true;
      if (m.type === 'Reply' && m.reference?.messageId) metadata.replyTo = m.reference.messageId;
      if (m.timestampEdited) metadata.editedAt = instantOf(m.timestampEdited, { timeZone }).instant.at.toISOString();
      if (m.isPinned) metadata.pinned = true;
      const message: IncomingMessage = {
        externalId: m.id,
        // The name people saw in the server is the nickname; the account name stays in metadata.
        speaker: m.author.nickname || m.author.name,
        role: 'other',
        text,
        sentAt: at,
        utcOffsetMin,
        attachments,
        metadata,
      };
      await checkJsonMessage(src, ev.path, `message ${index + 1}`, message);
      // The exporter writes guild and channel before the messages, so a long channel can go in parts.
      if (channel && partIsFull(messages, message)) {
        yield conversation(guild, channel, messages, skipped, parts++ > 0);
        messages = [];
        skipped = 0;
      }
      messages.push(message);
    } else if (ev.path.length === 0) {
      throw await valueError(src, [], 'expected a DiscordChatExporter object ({"guild", "channel", "messages"})');
    }
  }
  if (!channel || !found.messages)
    throw await valueError(src, [], 'no "channel" and "messages" here; is this a DiscordChatExporter JSON export?');
  if (messages.length > 0) yield conversation(guild, channel, messages, skipped, parts > 0);
}

function conversation(
  guild: z.infer<typeof Guild> | null,
  channel: z.infer<typeof Channel>,
  messages: IncomingMessage[],
  skipped: number,
  continued: boolean,
): IncomingConversation {
  const metadata: Record<string, unknown> = {
    skipped,
    timeZone: "offsets are the exporting computer's time zone (DiscordChatExporter writes local times with their offset)",
  };
  if (guild?.name) metadata.guild = guild.name;
  if (guild?.id) metadata.guildId = guild.id;
  if (channel.type) metadata.channelType = channel.type;
  if (channel.category) metadata.category = channel.category;
  if (channel.topic) metadata.topic = channel.topic;
  if (continued) metadata.continued = true;
  const dm = /^Direct/i.test(channel.type ?? '') || guild?.name === 'Direct Messages';
  const title = dm
    ? (channel.name ?? undefined)
    : [guild?.name, channel.name ? `#${channel.name}` : null].filter(Boolean).join(' / ') || undefined;
  return IncomingConversation.parse({
    source: 'discord',
    externalId: channel.id,
    title,
    metadata,
    messages,
  });
}

export const discordImport: ImportFormat = {
  id: 'discord',
  label: 'Discord (DiscordChatExporter JSON)',
  detect: (file) => jsonFileWith(file, /"guild"\s*:\s*\{/, /"channel"\s*:\s*\{/, /"messages"\s*:\s*\[/),
  read: readDiscord,
};
