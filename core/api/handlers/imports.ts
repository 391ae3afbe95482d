import path from 'node:path';
import { IncomingConversation, parseIsoWithOffset } from '../../domain/conversation.js';
import { NemoriError } from '../../domain/errors.js';
import { ingestConversation } from '../../episodes/process.js';
import { detectFormat } from '../../ingest/formats.js';
import type { Handlers, HandlerEnv } from '../handler.js';

export function importHandlers({ ctx }: HandlerEnv): Handlers<'ingestConversation' | 'importFiles'> {
  return {
    async ingestConversation(i) {
      const c = IncomingConversation.parse({
        source: i.source,
        externalId: i.conversation.id,
        title: i.conversation.title,
        participants: i.conversation.participants ?? [...new Set(i.conversation.messages.map((m) => m.speaker))],
        messages: i.conversation.messages.map((m) => {
          const { at, utcOffsetMin } = parseIsoWithOffset(m.timestamp);
          return { externalId: m.id, speaker: m.speaker, role: m.role ?? 'other', text: m.text, sentAt: at, utcOffsetMin };
        }),
      });
      return ingestConversation(ctx, i.ownerId, c);
    },

    async importFiles(i, opts) {
      const files = [];
      for (const [n, file] of i.paths.entries()) {
        const report = { file, format: null as string | null, conversations: 0, messages: 0, messagesAdded: 0, episodesCreated: 0, participants: [] as string[], warnings: [] as string[], error: null as { code: string; message: string } | null };
        try {
          const format = await detectFormat(file, i.format);
          report.format = format.id;
          const warnings: string[] = [];
          const readCtx = { warn: (m: string) => warnings.push(m) };
          // Pass 1 validates the whole file and counts it; pass 2 stores it. Bad input stores nothing,
          // and neither pass holds more than one conversation in memory.
          const participants = new Set<string>();
          for await (const c of format.read(file, readCtx)) {
            report.conversations++;
            report.messages += c.messages.length;
            for (const p of c.participants) participants.add(p);
          }
          report.participants = [...participants];
          let done = 0;
          for await (const c of format.read(file, { warn: () => {} })) {
            const r = await ingestConversation(ctx, i.ownerId, c);
            report.messagesAdded += r.messagesAdded;
            report.episodesCreated += r.episodesCreated;
            done += c.messages.length;
            opts.onProgress?.({ operation: 'importFiles', phase: 'import', done, total: report.messages, detail: `${path.basename(file)} (${n + 1}/${i.paths.length})` });
          }
          report.warnings = warnings;
        } catch (e) {
          if (!(e instanceof NemoriError)) throw e;
          report.error = { code: e.code, message: e.message };
        }
        files.push(report);
      }
      return { files };
    },

  };
}
