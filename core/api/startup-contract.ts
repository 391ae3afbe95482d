import { z } from 'zod';
import { Passphrase } from './system-contract.js';
import { FOLDER_PROBLEMS } from '../store/data-folder.js';

/**
 * Where the memory lives, which embedding model reads it, and restoring a backup: changes that close
 * the store and open another, so only a long-running host (the desktop app, `nemori web`) can make
 * them — core/api/app-engine.ts. A plain engine answers the reads and refuses the changes.
 */

const PinnedBy = z.enum(['--home', 'NEMORI_HOME', 'NEMORI_EMBEDDING_MODEL']).nullable();

/** Models offered in Settings; any other Hugging Face id with ONNX weights can be typed in. */
export const ModelChoice = z.object({
  id: z.string(),
  dimensions: z.number().int().nullable(),
  /** The download, roughly. */
  downloadMb: z.number().nullable(),
  recommended: z.boolean(),
});

export const StartupView = z.object({
  dataDir: z.string().nullable(),
  defaultDataDir: z.string().nullable(),
  /** Set for this run by a flag or the environment: Settings cannot change it then. */
  dataDirPinnedBy: PinnedBy,
  embeddingModel: z.string(),
  modelPinnedBy: PinnedBy,
  modelChoices: z.array(ModelChoice),
  /** Whether this engine can move, switch or restore (false: a CLI or test engine on a fixed folder). */
  canChange: z.boolean(),
});
export type StartupView = z.infer<typeof StartupView>;

export const InspectFolderOutput = z.object({
  folder: z.string(),
  exists: z.boolean(),
  empty: z.boolean(),
  /** It holds a Nemori memory (a `db` folder). */
  holdsMemory: z.boolean(),
  isCurrent: z.boolean(),
  /** Why the memory cannot be moved there, if it cannot. */
  cannotMove: z.enum(FOLDER_PROBLEMS).nullable(),
  /** Why Nemori cannot open (or start) a memory there, if it cannot. */
  cannotOpen: z.enum(FOLDER_PROBLEMS).nullable(),
});

const Folder = z.string().trim().min(1, 'choose a folder');

export const SetDataFolderInput = z.object({
  folder: Folder,
  /** `move`: carry this memory there (the folder must be empty) · `open`: use the memory there, or start a new one. */
  mode: z.enum(['move', 'open']),
});
export const SetDataFolderOutput = z.object({
  startup: StartupView,
  /** Old copies the move could not delete (the person may remove them). */
  leftBehind: z.array(z.string()),
});

export const SetEmbeddingModelInput = z.object({ modelId: z.string().trim().min(1, 'name a model') });
export const SetEmbeddingModelOutput = z.object({
  startup: StartupView,
  /** Episodes and facts that have no vector from this model yet (rebuildIndexes embeds them). */
  unembedded: z.number().int(),
});

export const BackupFile = z.object({
  file: z.string(),
  bytes: z.number().int(),
  at: z.string(),
  encrypted: z.boolean(),
  /**
   * Encrypted, and made before secrets that older privacy rules let through were taken out of the memory:
   * it may still hold them, and Nemori cannot open it to take them out (core/forgetting/backup-secrets.ts).
   */
  mayHoldSecrets: z.boolean(),
});
export const ListBackupsOutput = z.object({ folder: z.string().nullable(), backups: z.array(BackupFile) });

export const RestoreBackupInput = z.object({
  file: z.string().trim().min(1, 'choose a backup file'),
  /** An encrypted backup's passphrase; the present memory's safety backup is then encrypted with it too. */
  passphrase: Passphrase.optional(),
});
export const RestoreBackupOutput = z.object({
  restored: z.string(),
  /** The memory as it was just before, saved first so the restore can be undone. */
  safetyBackup: z.string(),
  schemaVersion: z.number().int(),
});

export const startupOperations = {
  getStartup: { input: z.object({}), output: StartupView },
  inspectFolder: { input: z.object({ folder: Folder }), output: InspectFolderOutput },
  setDataFolder: { input: SetDataFolderInput, output: SetDataFolderOutput },
  setEmbeddingModel: { input: SetEmbeddingModelInput, output: SetEmbeddingModelOutput },
  listBackups: { input: z.object({}), output: ListBackupsOutput },
  restoreBackup: { input: RestoreBackupInput, output: RestoreBackupOutput },
} as const;

/** The operations only a host that can reopen the store performs. */
export const HOST_OPERATIONS = ['setDataFolder', 'setEmbeddingModel', 'restoreBackup'] as const;
export type HostOperationName = (typeof HOST_OPERATIONS)[number];
