import fs from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import { IncomingConversation, type Attachment, type IncomingMessage } from '../domain/conversation.js';
import type { ImportFormat, ReadContext } from './import-format.js';
import { conversationSources, detectConversationsJson, readConversationArray } from './conversations-json.js';
import { checkJsonMessage, valueError, type JsonSource } from './json-stream.js';
import { attachment, mediaKind } from './media.js';
import { importTimeZone, instantOf, timeField, type Instant } from './time-shapes.js';
import { zipEntryNamesSync } from './zip.js';

/**
 * ChatGPT data export (Settings → Data controls → Export data): `conversations.json`, an array of
 * conversations whose messages form a tree (every edit or regeneration starts a branch). We follow the
 * branch the person last saw — from `current_node` up to the root — and keep what was visibly said.
 */

const Message = z.looseObject({
  id: z.string().min(1),
  author: z.looseObject({ role: z.string(), name: z.string().nullish() }),
  create_time: timeField().nullish(),
  content: z.looseObject({
    content_type: z.string(),
    parts: z.array(z.unknown()).nullish(),
    text: z.string().nullish(),
  }),
  recipient: z.string().nullish(),
  metadata: z
    .looseObject({
      model_slug: z.string().nullish(),
      is_visually_hidden_from_conversation: z.boolean().nullish(),
      attachments: z
        .array(
          z.looseObject({
            id: z.string().nullish(),
            name: z.string().nullish(),
            mime_type: z.string().nullish(),
            mimeType: z.string().nullish(),
          }),
        )
        .nullish(),
    })
    .nullish(),
});
type Message = z.infer<typeof Message>;

const Node = z.looseObject({
  message: Message.nullish(),
  parent: z.string().nullish(),
  children: z.array(z.string()).nullish(),
});

const Conversation = z.looseObject({
  id: z.string().min(1).nullish(),
  conversation_id: z.string().min(1).nullish(),
  title: z.string().nullish(),
  create_time: timeField().nullish(),
  update_time: timeField().nullish(),
  mapping: z.record(z.string(), Node),
  current_node: z.string().nullish(),
  default_model_slug: z.string().nullish(),
});
type Conversation = z.infer<typeof Conversation>;

/** Content types a person sees as the message itself; the rest (reasoning, tool calls, memory) is scaffolding. */
const VISIBLE_CONTENT = new Set(['text', 'multimodal_text']);

const SPEAKER = { user: 'User', assistant: 'ChatGPT' } as const;

/** ChatGPT writes float unix seconds (microseconds kept to the millisecond); converters write other shapes. */
type TimeOf = (v: string | number) => Instant;

/** The branch ending at current_node, root first; null when a parent is missing (reported by the caller). */
function followBranch(c: Conversation, leaf: string): { ids: string[]; missing: string | null } {
  const ids: string[] = [];
  const seen = new Set<string>();
  let id: string | null | undefined = leaf;
  while (id) {
    if (seen.has(id)) break; // A cycle would be a broken export; the walk stops instead of looping.
    seen.add(id);
    const node: z.infer<typeof Node> | undefined = c.mapping[id];
    if (!node) return { ids, missing: id };
    ids.push(id);
    id = node.parent;
  }
  return { ids: ids.reverse(), missing: null };
}

/** The leaf a person most likely saw when an old export lacks current_node: the latest message. */
function latestLeaf(c: Conversation, timeOf: TimeOf): string | null {
  let best: { id: string; t: number } | null = null;
  for (const [id, node] of Object.entries(c.mapping)) {
    if (node.children && node.children.length > 0) continue;
    const t = node.message?.create_time != null ? timeOf(node.message.create_time).at.getTime() : 0;
    if (!best || t >= best.t) best = { id, t };
  }
  return best?.id ?? null;
}

/** A `file-service://…` or `sediment://…` pointer → the file in the export, when it is there. */
type ResolveAsset = (pointer: string) => string | undefined;

/**
 * The export holds the uploaded and generated files beside conversations.json, named after the
 * pointer's id (`file-AbC123-西湖.jpg`, `dalle-generations/file_0001-….webp`): in the zip, a member
 * (linked as `archive#member`); unzipped, a file in the folder or one folder down.
 */
function assetResolver(file: string): ResolveAsset {
  let names: string[];
  let uri: (name: string) => string;
  if (path.extname(file).toLowerCase() === '.zip') {
    names = zipEntryNamesSync(file) ?? [];
    uri = (name) => `${file}#${name}`;
  } else {
    const dir = path.dirname(path.resolve(file));
    names = [];
    try {
      for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
        if (e.isFile()) names.push(e.name);
        else if (e.isDirectory() && !e.name.startsWith('.'))
          for (const f of fs.readdirSync(path.join(dir, e.name), { withFileTypes: true }))
            if (f.isFile()) names.push(`${e.name}/${f.name}`);
      }
    } catch {
      // An unreadable folder: the pointers stay as they are.
    }
    uri = (name) => path.join(dir, ...name.split('/'));
  }
  const byId = new Map<string, string>();
  for (const name of names) {
    const id = /^(file[-_][A-Za-z0-9]+)/.exec(path.posix.basename(name))?.[1];
    if (id && !byId.has(id)) byId.set(id, name);
  }
  return (pointer) => {
    const name = byId.get(pointer.replace(/^(file-service|sediment):\/\//, ''));
    return name ? uri(name) : undefined;
  };
}

function partsOf(m: Message, resolve: ResolveAsset): { text: string; attachments: Attachment[] } {
  const texts: string[] = [];
  const attachments: Attachment[] = [];
  const seen = new Set<string>();
  for (const a of m.metadata?.attachments ?? []) {
    const mimeType = a.mime_type ?? a.mimeType ?? undefined;
    if (a.id) seen.add(a.id);
    attachments.push(
      attachment({
        kind: mediaKind({ mimeType, name: a.name }),
        name: a.name,
        mimeType,
        uri: a.id ? (resolve(a.id) ?? `file-service://${a.id}`) : undefined,
      }),
    );
  }
  for (const part of m.content.parts ?? []) {
    if (typeof part === 'string') {
      if (part.trim()) texts.push(part);
      continue;
    }
    // Images, voice recordings and their transcripts are objects in `parts`; other objects are left out.
    const p = part as {
      content_type?: unknown;
      asset_pointer?: unknown;
      text?: unknown;
      metadata?: { dalle?: { prompt?: unknown } | null } | null;
    };
    // Voice mode: what was said is the transcription; the recording is linked media.
    if (p.content_type === 'audio_transcription' && typeof p.text === 'string') {
      if (p.text.trim()) texts.push(p.text);
      continue;
    }
    if (p.content_type === 'audio_asset_pointer' && typeof p.asset_pointer === 'string') {
      attachments.push(attachment({ kind: 'audio', uri: resolve(p.asset_pointer) ?? p.asset_pointer }));
      continue;
    }
    if (p.content_type === 'image_asset_pointer' && typeof p.asset_pointer === 'string') {
      const id = p.asset_pointer.replace(/^(file-service|sediment):\/\//, '');
      if (seen.has(id)) continue;
      seen.add(id);
      const prompt = p.metadata?.dalle?.prompt;
      attachments.push(
        attachment({
          kind: 'image',
          uri: resolve(p.asset_pointer) ?? p.asset_pointer,
          caption: typeof prompt === 'string' ? prompt : undefined,
        }),
      );
    }
  }
  if (texts.length === 0 && m.content.text?.trim()) texts.push(m.content.text);
  return { text: texts.join('\n\n'), attachments };
}

async function toConversation(
  src: JsonSource,
  index: number,
  c: Conversation,
  ctx: ReadContext,
  resolve: ResolveAsset,
): Promise<IncomingConversation> {
  const externalId = c.conversation_id ?? c.id;
  if (!externalId) throw await valueError(src, [index], `conversation ${index + 1} has neither "id" nor "conversation_id"`);
  const label = `conversation "${c.title ?? externalId}"`;
  const timeZone = importTimeZone(ctx);
  const timeOf: TimeOf = (v) => instantOf(v, { timeZone }).instant;
  let leaf = c.current_node ?? null;
  if (!leaf || !c.mapping[leaf]) {
    const fallback = latestLeaf(c, timeOf);
    if (leaf) ctx.warn(`${label}: current_node ${leaf} is not in the message tree; following the latest message instead`);
    leaf = fallback;
  }
  const { ids, missing } = leaf ? followBranch(c, leaf) : { ids: [], missing: null };
  if (missing)
    throw await valueError(src, [index, 'mapping'], `${label}: a message's parent ${missing} is not in "mapping" (the export is damaged)`);

  const messages: IncomingMessage[] = [];
  let skipped = 0;
  let lastTime = c.create_time ?? null;
  for (const id of ids) {
    const m = c.mapping[id]!.message;
    if (!m) continue; // The synthetic root node.
    const time = m.create_time ?? lastTime;
    if (m.create_time) lastTime = m.create_time;
    const { text, attachments } = partsOf(m, resolve);
    // Images a tool produced (DALL·E) are shown in the chat as ChatGPT's; the tool's text output is not.
    const toolImage = m.author.role === 'tool' && attachments.length > 0;
    const role = toolImage ? 'assistant' : m.author.role;
    const hidden =
      (role !== 'user' && role !== 'assistant') ||
      m.metadata?.is_visually_hidden_from_conversation === true ||
      !VISIBLE_CONTENT.has(m.content.content_type) ||
      (m.recipient != null && m.recipient !== 'all');
    if (hidden || (!text && attachments.length === 0)) {
      skipped++;
      continue;
    }
    if (time == null)
      throw await valueError(
        src,
        [index, 'mapping', id, 'message', 'create_time'],
        `${label}: message ${id} has no time and neither has the conversation`,
      );
    const metadata: Record<string, unknown> = {};
    if (m.metadata?.model_slug) metadata.model = m.metadata.model_slug;
    if (toolImage) metadata.tool = m.author.name ?? 'tool';
    if (m.create_time == null) metadata.timeEstimated = true;
    const message: IncomingMessage = {
      externalId: m.id,
      speaker: SPEAKER[role as 'user' | 'assistant'],
      role: role as 'user' | 'assistant',
      text: toolImage ? '' : text,
      sentAt: timeOf(time).at,
      utcOffsetMin: timeOf(time).utcOffsetMin,
      attachments,
      metadata,
    };
    await checkJsonMessage(src, [index, 'mapping', id, 'message'], `${label}: message ${id}`, message);
    messages.push(message);
  }
  const onBranch = new Set(ids);
  const metadata: Record<string, unknown> = {
    skipped,
    // Earlier edits and regenerations: not lost in the export, but not what the person kept.
    messagesOnOtherBranches: Object.entries(c.mapping).filter(([id, n]) => !onBranch.has(id) && n.message).length,
    timeZone: 'UTC (the export has no time zone)',
  };
  if (c.default_model_slug) metadata.model = c.default_model_slug;
  if (c.create_time != null) metadata.createdAt = timeOf(c.create_time).at.toISOString();
  return IncomingConversation.parse({
    source: 'chatgpt',
    externalId,
    title: c.title ?? undefined,
    metadata,
    messages,
  });
}

export const chatgptImport: ImportFormat = {
  id: 'chatgpt',
  label: 'ChatGPT export',
  detect: (f) => detectConversationsJson(f, /"mapping"\s*:\s*\{/),
  async *read(file, ctx) {
    for await (const src of conversationSources(file)) {
      const resolve = assetResolver(file);
      yield* readConversationArray(src, Conversation, 'conversation', (i, c) => toConversation(src, i, c, ctx, resolve));
    }
  },
};
