import { z } from 'zod';
import { IsoTimestamp } from '../domain/conversation.js';

const noNul = (s: string) => !s.includes('\u0000');
const NUL = 'contains a NUL character (U+0000)';
import { Owner } from '../domain/owner.js';
import { ImportFilesInput, ImportFilesOutput } from '../ingest/import-report.js';
import { SetWatchedFolderInput, WatchedFolderView } from '../ingest/watch-report.js';

export { ImportFileReport, ImportFilesInput, ImportFilesOutput } from '../ingest/import-report.js';
export { SetWatchedFolderInput, WatchedFile, WatchedFolderView } from '../ingest/watch-report.js';

/** Conversations in: from a program, one or several at a time, or whole export files. */

export const ConversationInput = z.object({
  id: z.union([z.string().min(1), z.number()]).transform(String),
  title: z.string().optional(),
  participants: z.array(z.string()).optional(),
  messages: z
    .array(
      z.object({
        id: z
          .union([z.string().min(1), z.number()])
          .transform(String)
          .optional(),
        // The store cannot hold a NUL: refused here rather than failing the write half-way.
        speaker: z.string().min(1).refine(noNul, NUL),
        role: z.enum(['user', 'assistant', 'other', 'system']).optional(),
        text: z.string().refine(noNul, NUL),
        timestamp: IsoTimestamp,
      }),
    )
    .min(1),
});

export const IngestOutput = z.object({
  conversationId: z.string(),
  messagesAdded: z.number().int(),
  episodesCreated: z.number().int(),
  /** Secrets the privacy filter replaced with placeholders (how many, never what). */
  redacted: z.number().int(),
});

export const importOperations = {
  ingestConversation: {
    input: z.object({ ownerId: Owner, source: z.string().default('api'), conversation: ConversationInput }),
    output: IngestOutput,
  },
  /** Several conversations at once (a program importing its history): each as `ingestConversation` takes one; small ones are built together. */
  ingestConversations: {
    input: z.object({ ownerId: Owner, source: z.string().default('api'), conversations: z.array(ConversationInput).min(1).max(1000) }),
    output: z.object({ conversations: z.array(IngestOutput) }),
  },
  importFiles: { input: ImportFilesInput, output: ImportFilesOutput },
  /** The watched folder (Settings → Import), with the reports of the last files imported from it. */
  getWatchedFolder: { input: z.object({}), output: WatchedFolderView },
  /** Watches a folder (its export files are imported once each, as they appear), or none. */
  setWatchedFolder: { input: SetWatchedFolderInput, output: WatchedFolderView },
} as const;
