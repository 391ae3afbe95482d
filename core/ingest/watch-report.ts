import { z } from 'zod';
import { Owner } from '../domain/owner.js';
import { ImportFileReport } from './import-report.js';

/** The watched folder as the app shows it, and what it remembers of the files it imported. */

/** One file the watched folder imported (or failed to): the same report a manual import gives. */
export const WatchedFile = z.object({
  /** Absolute path. */
  file: z.string(),
  /** Its size and modification time when it was imported: the same file again is not imported again. */
  size: z.number().int().min(0),
  mtimeMs: z.number(),
  importedAt: z.string(),
  report: ImportFileReport,
});
export type WatchedFile = z.infer<typeof WatchedFile>;

/** The files seen, newest first: those still in the folder, and the last few of those gone from it. */
export const WatchedFiles = z.object({ files: z.array(WatchedFile) });
export type WatchedFiles = z.infer<typeof WatchedFiles>;

export const WatchedFolderView = z.object({
  folder: z.string().nullable(),
  ownerId: z.string(),
  /** Whether this process watches it now: only a long-running host does (the app, `nemori web`). */
  watching: z.boolean(),
  /** Why the folder cannot be watched (gone, unreadable); null when all is well. */
  problem: z.string().nullable(),
  /** The last files imported from it, newest first. */
  recent: z.array(WatchedFile),
});
export type WatchedFolderView = z.infer<typeof WatchedFolderView>;

export const SetWatchedFolderInput = z.object({
  /** An absolute path to a folder; null stops watching. */
  folder: z.string().min(1).nullable(),
  /** Whose memory its files go into (default: the person's). */
  ownerId: Owner,
});
