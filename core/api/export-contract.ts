import { z } from 'zod';
import { Owner } from '../domain/owner.js';
import { Passphrase } from './system-contract.js';

/** The open export: an owner's whole memory as documented JSON Lines in a zip (docs/export-format.md), and reading one back. */

const FullPath = z
  .string()
  .trim()
  .min(1, 'name a file')
  .refine((f) => f.startsWith('/') || /^[A-Za-z]:[\\/]/.test(f) || f.startsWith('\\\\'), 'give a full path');

export const ExportMemoryInput = z.object({
  ownerId: Owner,
  file: FullPath,
  /** Encrypt the export with this passphrase (as an encrypted backup). */
  passphrase: Passphrase.optional(),
});
export const ExportMemoryOutput = z.object({
  file: z.string(),
  bytes: z.number().int(),
  encrypted: z.boolean(),
  /** Rows written per table. */
  counts: z.record(z.string(), z.number().int()),
});

export const ImportMemoryInput = z.object({
  ownerId: Owner,
  file: FullPath,
  /** An encrypted export's passphrase. */
  passphrase: z.string().min(1).optional(),
});
export const ImportMemoryOutput = z.object({
  ownerId: z.string(),
  exportedAt: z.string(),
  /** Rows read back per table. */
  counts: z.record(z.string(), z.number().int()),
});

export const exportOperations = {
  exportMemory: { input: ExportMemoryInput, output: ExportMemoryOutput },
  /** Into an empty memory only: the export's ids are kept. */
  importMemory: { input: ImportMemoryInput, output: ImportMemoryOutput },
} as const;
