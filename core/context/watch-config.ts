import { z } from 'zod';
import { Owner } from '../domain/owner.js';

/**
 * The watched folder (Settings → Import → "Import new exports from this folder"): a long-running host
 * imports every export file that appears there, once. Saved with the other engine settings in the
 * store, so it follows the memory when it moves and comes back as it was with a restored backup.
 */
export const WatchConfig = z.object({
  /** Absolute path of the folder; null: none watched. */
  folder: z.string().min(1).nullable().default(null),
  /** Whose memory the files go into. */
  ownerId: Owner,
  /**
   * A file is imported once its size and modification time have stayed the same for this long: a
   * download or a copy still being written is left until it is whole.
   */
  settleMs: z.number().int().min(0).default(2000),
  /** A full look at the folder this often, for the changes the file system's events missed. */
  rescanMs: z.number().int().positive().default(60_000),
});
export type WatchConfig = z.infer<typeof WatchConfig>;
