import { z } from 'zod';
import { IncomingConversation, type Attachment, type IncomingMessage } from '../domain/conversation.js';
import type { ImportFormat } from './import-format.js';
import { importTimeZone, instantOf, timeField } from './time-shapes.js';
import { conversationSources, detectConversationsJson, readConversationArray } from './conversations-json.js';
import { attachment, mediaKind } from './media.js';
import { checkJsonMessage, type JsonSource } from './json-stream.js';

/**
 * Claude.ai export (Settings → Privacy → Export data): a zip with `conversations.json` (plus users.json
 * and projects.json, which carry no messages). Each conversation lists its `chat_messages` in order.
 */

const ContentBlock = z.looseObject({ type: z.string(), text: z.string().nullish() });

const ChatMessage = z.looseObject({
  uuid: z.string().min(1),
  sender: z.string(),
  text: z.string().nullish(),
  content: z.array(ContentBlock).nullish(),
  created_at: timeField(),
  attachments: z
    .array(
      z.looseObject({
        file_name: z.string().nullish(),
        file_type: z.string().nullish(),
        file_size: z.number().nullish(),
        extracted_content: z.string().nullish(),
      }),
    )
    .nullish(),
  files: z.array(z.looseObject({ file_name: z.string().nullish(), file_uuid: z.string().nullish() })).nullish(),
});
type ChatMessage = z.infer<typeof ChatMessage>;

const Conversation = z.looseObject({
  uuid: z.string().min(1),
  name: z.string().nullish(),
  summary: z.string().nullish(),
  created_at: timeField().nullish(),
  chat_messages: z.array(ChatMessage),
});
type Conversation = z.infer<typeof Conversation>;

const WHO = {
  human: { speaker: 'User', role: 'user' },
  assistant: { speaker: 'Claude', role: 'assistant' },
} as const;

function message(m: ChatMessage, timeZone: string): IncomingMessage | null {
  const who = WHO[m.sender as keyof typeof WHO];
  if (!who) return null;
  // Text blocks are what the chat shows; thinking, tool calls and tool results are scaffolding.
  const blocks = (m.content ?? []).filter((b) => b.type === 'text' && b.text?.trim()).map((b) => b.text!);
  const parts = blocks.length > 0 ? [blocks.join('\n\n')] : m.text?.trim() ? [m.text] : [];
  const attachments: Attachment[] = [];
  for (const a of m.attachments ?? []) {
    attachments.push(
      attachment({ kind: mediaKind({ mimeType: a.file_type, name: a.file_name }), name: a.file_name, mimeType: a.file_type }),
    );
    // Claude read the file's text; keeping it makes the conversation searchable for what was discussed.
    if (a.extracted_content?.trim()) parts.push(`[attached file: ${a.file_name ?? 'untitled'}]\n${a.extracted_content.trim()}`);
  }
  for (const f of m.files ?? []) {
    if (f.file_name && attachments.some((a) => a.name === f.file_name)) continue;
    attachments.push(attachment({ kind: mediaKind({ name: f.file_name }), name: f.file_name }));
  }
  const text = parts.join('\n\n');
  if (!text && attachments.length === 0) return null;
  const { at, utcOffsetMin } = instantOf(m.created_at, { timeZone }).instant;
  return { externalId: m.uuid, speaker: who.speaker, role: who.role, text, sentAt: at, utcOffsetMin, attachments, metadata: {} };
}

async function toConversation(src: JsonSource, index: number, c: Conversation, timeZone: string): Promise<IncomingConversation> {
  const messages: IncomingMessage[] = [];
  let skipped = 0;
  for (const [i, m] of c.chat_messages.entries()) {
    const out = message(m, timeZone);
    if (out) {
      await checkJsonMessage(src, [index, 'chat_messages', i], `conversation ${index + 1}: message ${m.uuid}`, out);
      messages.push(out);
    } else skipped++;
  }
  const metadata: Record<string, unknown> = { skipped, timeZone: 'UTC (times in the export carry their offset, which is Z)' };
  if (c.summary) metadata.summary = c.summary;
  if (c.created_at) metadata.createdAt = instantOf(c.created_at, { timeZone }).instant.at.toISOString();
  return IncomingConversation.parse({
    source: 'claude',
    externalId: c.uuid,
    title: c.name || undefined,
    metadata,
    messages,
  });
}

export const claudeImport: ImportFormat = {
  id: 'claude',
  label: 'Claude.ai export',
  detect: (f) => detectConversationsJson(f, /"chat_messages"\s*:/),
  async *read(file, ctx) {
    const timeZone = importTimeZone(ctx);
    for await (const src of conversationSources(file)) {
      yield* readConversationArray(src, Conversation, 'conversation', (i, c) => toConversation(src, i, c, timeZone));
    }
  },
};
