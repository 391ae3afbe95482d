import { z } from 'zod';
import { ForgettingReason } from '../domain/forgetting-reason.js';
import { DateInput, Owner } from './search-contract.js';

/** Forgetting: decay and tiers (archive → trash → purge), importance, and forgetting about someone. */

const MemoryKindName = z.enum(['episode', 'semantic']);
const TierName = z.enum(['active', 'archived', 'trash']);
export const MemoryIdInput = z.object({ ownerId: Owner, id: z.string().uuid('not a memory id') });

export const RunForgettingInput = z.object({
  ownerId: Owner,
  /** List what would move where and why; change nothing. */
  dryRun: z.boolean().default(false),
  /** Run as of this date instead of the engine clock (preview the future, or replay). */
  now: DateInput.optional(),
});
export const ForgettingMoveView = z.object({
  kind: MemoryKindName,
  id: z.string(),
  title: z.string(),
  from: TierName,
  to: z.enum(['active', 'archived', 'trash', 'purged']),
  score: z.number(),
  importance: z.number(),
  reason: ForgettingReason,
});
export const RunForgettingOutput = z.object({
  ownerId: z.string(),
  now: z.string(),
  dryRun: z.boolean(),
  evaluated: z.number().int(),
  moved: z.object({ archived: z.number().int(), trashed: z.number().int(), purged: z.number().int(), restored: z.number().int() }),
  importanceUpdated: z.number().int(),
  tiers: z.object({ active: z.number().int(), archived: z.number().int(), trash: z.number().int() }),
  moves: z.array(ForgettingMoveView),
  reembedded: z.number().int(),
  warnings: z.array(z.string()),
});

export const TierListInput = z.object({
  ownerId: Owner,
  limit: z.number().int().min(1).max(1000).default(50),
  cursor: z.string().optional(),
});
export const TierItemView = z.object({
  kind: MemoryKindName,
  id: z.string(),
  title: z.string(),
  summary: z.string(),
  start: z.string().nullable(),
  tier: TierName,
  /** When it moved to this tier. */
  since: z.string().nullable(),
  reason: ForgettingReason.nullable(),
  /** Trash only: when a pass will delete it for good. */
  purgeAfter: z.string().nullable(),
  importance: z.number(),
  recallCount: z.number().int(),
  lastAccessed: z.string().nullable(),
  marked: z.boolean().nullable(),
});
export const TierListOutput = z.object({ items: z.array(TierItemView), nextCursor: z.string().nullable() });

export const RestoreOutput = z.object({
  kind: MemoryKindName,
  id: z.string(),
  from: TierName,
  tier: z.literal('active'),
  reembedded: z.boolean(),
  warnings: z.array(z.string()),
});
export const PurgeTrashInput = z.object({ ownerId: Owner, ids: z.array(z.string().uuid('not a memory id')).optional() });
export const PurgeTrashOutput = z.object({ purged: z.number().int(), ids: z.array(z.string()) });

export const MarkMemoryInput = z.object({
  ownerId: Owner,
  id: z.string().uuid('not a memory id'),
  /** true = important (exempt from forgetting), false = not important (fades fast), null = no opinion. */
  important: z.boolean().nullable(),
});
export const MarkMemoryOutput = z.object({
  kind: MemoryKindName,
  id: z.string(),
  marked: z.boolean().nullable(),
  importance: z.number(),
  tier: TierName,
  restored: z.boolean(),
});

export const ForgetAboutInput = z.object({
  ownerId: Owner,
  about: z.string().trim().min(1, 'say what to forget: a name or a keyword').max(200),
  dryRun: z.boolean().default(false),
});
export const ForgetAboutOutput = z.object({
  about: z.string(),
  dryRun: z.boolean(),
  memories: z.array(z.object({ kind: MemoryKindName, id: z.string(), title: z.string(), tier: TierName })),
  messages: z.number().int(),
  conversations: z.number().int(),
  /** Whether the deleted text was erased from the store's files and log (VACUUM FULL + checkpoint); false on a dry run. */
  erased: z.boolean(),
});

export const DecayExplanationOutput = z.object({
  kind: MemoryKindName,
  id: z.string(),
  tier: TierName,
  score: z.number(),
  importance: z.number(),
  baseImportance: z.number(),
  elapsedDays: z.number(),
  recallCount: z.number().int(),
  lastAccessed: z.string().nullable(),
  marked: z.boolean().nullable(),
  exempt: z.boolean(),
  thresholds: z.object({ archive: z.number(), trash: z.number() }),
  /** When the memory would reach each threshold if nobody recalls it (null: never, or already past). */
  projected: z.object({ archive: z.string().nullable(), trash: z.string().nullable() }),
});

export const forgettingOperations = {
  runForgetting: { input: RunForgettingInput, output: RunForgettingOutput },
  listArchive: { input: TierListInput, output: TierListOutput },
  restoreFromArchive: { input: MemoryIdInput, output: RestoreOutput },
  listTrash: { input: TierListInput, output: TierListOutput },
  restoreFromTrash: { input: MemoryIdInput, output: RestoreOutput },
  purgeTrash: { input: PurgeTrashInput, output: PurgeTrashOutput },
  markMemory: { input: MarkMemoryInput, output: MarkMemoryOutput },
  explainDecay: { input: MemoryIdInput, output: DecayExplanationOutput },
  forgetAbout: { input: ForgetAboutInput, output: ForgetAboutOutput },
} as const;
