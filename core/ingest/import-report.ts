import { z } from 'zod';
import { DiscoveryRun } from '../facts/reports.js';
import { Owner } from '../domain/owner.js';

/** What an import of export files asks for, and what it reports per file and in all. */

/** Day first (`dmy`) or month first (`mdy`) in numeric dates. */
export const DateOrder = z.enum(['dmy', 'mdy']);

export const ImportFilesInput = z.object({
  ownerId: Owner,
  paths: z.array(z.string().min(1)).min(1),
  format: z.string().optional(),
  /** Which participant is the person (their messages get role `user`); remembered per format. */
  me: z.string().min(1).optional(),
  /** Read and report without storing anything. */
  dryRun: z.boolean().default(false),
  /** IANA zone the exporting device used, for exports that write local times without a zone. */
  timeZone: z
    .string()
    .refine((tz) => {
      try {
        new Intl.DateTimeFormat('en', { timeZone: tz });
        return true;
      } catch {
        return false;
      }
    }, 'not a time zone Nemori knows; use an IANA name such as Asia/Shanghai or Europe/Berlin')
    .optional(),
  /** Day or month first in numeric dates (WhatsApp), when the file does not settle it; default: this machine's locale. */
  dateOrder: DateOrder.optional(),
});

const ImportError = z.object({ code: z.string(), message: z.string() });
export const ImportFileReport = z.object({
  file: z.string(),
  format: z.string().nullable(),
  conversations: z.number().int(),
  /** Spoken or written messages only: system events, calls and membership changes are `skipped`. */
  messages: z.number().int(),
  skipped: z.number().int(),
  messagesAdded: z.number().int(),
  episodesCreated: z.number().int(),
  /** Secrets the privacy filter replaced with placeholders before storing (how many, never what). */
  redacted: z.number().int(),
  participants: z.array(z.string()),
  me: z.string().nullable(),
  dateRange: z.object({ from: z.string(), to: z.string() }).nullable(),
  /**
   * The day/month order numeric dates were read in, when the file itself does not settle it (WhatsApp):
   * `guess` from this machine's locale, or the `dateOrder` given (`choice`). Null: the file settles it.
   */
  dateOrder: z.object({ order: DateOrder, by: z.enum(['guess', 'choice']) }).nullable(),
  warnings: z.array(z.string()),
  error: ImportError.nullable(),
});
export type ImportFileReport = z.infer<typeof ImportFileReport>;
export const ImportFilesOutput = z.object({
  /** The format of every file, or "mixed". */
  format: z.string().nullable(),
  conversations: z.number().int(),
  messages: z.number().int(),
  participants: z.array(z.string()),
  skipped: z.number().int(),
  /** Secrets replaced with placeholders in all files. */
  redacted: z.number().int(),
  warnings: z.array(z.string()),
  errors: z.array(ImportError.extend({ file: z.string() })),
  dryRun: z.boolean(),
  files: z.array(ImportFileReport),
  /** The knowledge-discovery phase (null without an LLM, on a dry run, or when nothing new was built). */
  discovery: DiscoveryRun.nullable(),
  /** Stopped by `cancelCall`: what was stored stays (whole conversations); importing again adds the rest. */
  cancelled: z.boolean(),
});
export type ImportFilesOutput = z.infer<typeof ImportFilesOutput>;
