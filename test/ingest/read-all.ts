import type { IncomingConversation } from '../../core/domain/conversation.js';
import type { ImportFormat } from '../../core/ingest/import-format.js';

/** Runs an importer to the end, as the engine's validation pass does, keeping the warnings. */
export async function readAll(
  format: ImportFormat,
  file: string,
  timeZone?: string,
): Promise<{ conversations: IncomingConversation[]; warnings: string[] }> {
  const warnings: string[] = [];
  const conversations: IncomingConversation[] = [];
  for await (const c of format.read(file, { warn: (m) => warnings.push(m), timeZone })) conversations.push(c);
  return { conversations, warnings };
}

/** What a person would check in the viewer: who, when (exact instant and offset), what. */
export function lines(c: IncomingConversation): string[] {
  return c.messages.map(
    (m) => `${m.sentAt.toISOString()} ${m.utcOffsetMin >= 0 ? '+' : ''}${m.utcOffsetMin} ${m.speaker} [${m.role}]: ${m.text}`,
  );
}
