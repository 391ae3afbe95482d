import path from 'node:path';
import type { EngineContext } from '../../context/engine-context.js';
import { backupFolder, checkFolder, listBackupFiles, type FolderCheck } from '../../store/data-folder.js';
import { NemoriError } from '../../domain/errors.js';
import { sealedBackupsWithSecrets } from '../../forgetting/backup-secrets.js';
import { DEFAULT_MODEL_ID } from '../../embed/index.js';
import { MODEL_SPECS } from '../../embed/model-specs.js';
import type { Handlers, HandlerEnv } from '../handler.js';
import type { StartupView } from '../startup-contract.js';

/** The data folder of an engine (null: in memory); its store lives in `<home>/db`. */
export const homeOf = (ctx: EngineContext): string | null => (ctx.store.dir ? path.dirname(ctx.store.dir) : null);

/** Where backups go unless told otherwise, and where Settings lists them from. */
export const backupFolderOf = (ctx: EngineContext): string | null => (ctx.store.dir ? backupFolder(ctx.store.dir) : null);

/** `inspectFolder` for an engine on `home` (and, for the app's engine, its default folder). */
export function inspectFolder(folder: string, home: string | null, appFolder: string | null = null): FolderCheck {
  if (!path.isAbsolute(folder)) throw new NemoriError('INVALID_INPUT', `inspectFolder: folder: give a full path (${folder} is relative)`);
  return checkFolder(folder, home, appFolder);
}

/** The models Settings offers, and the one in use when it is not among them. */
function modelChoices(current: string): StartupView['modelChoices'] {
  const offered = [...MODEL_SPECS.values()].flatMap((s) =>
    s.offered ? [{ id: s.id, dimensions: s.dimensions ?? null, downloadMb: s.offered.downloadMb, recommended: s.offered.recommended }] : [],
  );
  if (offered.some((c) => c.id === current)) return offered;
  return [...offered, { id: current, dimensions: MODEL_SPECS.get(current)?.dimensions ?? null, downloadMb: null, recommended: false }];
}

/**
 * The reads of core/api/startup-contract.ts. The changes need a host that can close this store and
 * open another (core/api/app-engine.ts answers them there); an engine opened on a fixed folder refuses.
 */
export function startupHandlers({
  ctx,
  embeddingStatus,
}: HandlerEnv): Handlers<'getStartup' | 'inspectFolder' | 'listBackups' | 'setDataFolder' | 'setEmbeddingModel' | 'restoreBackup'> {
  const refuse = (what: string) => async (): Promise<never> => {
    throw new NemoriError('INVALID_INPUT', `${what} needs the desktop app or \`nemori web\`: this engine was opened on a fixed folder`);
  };
  return {
    async getStartup() {
      const model = embeddingStatus.modelId === 'none' ? DEFAULT_MODEL_ID : embeddingStatus.modelId;
      return {
        dataDir: homeOf(ctx),
        defaultDataDir: null,
        dataDirPinnedBy: null,
        embeddingModel: model,
        modelPinnedBy: null,
        modelChoices: modelChoices(model),
        canChange: false,
      };
    },

    async inspectFolder(i) {
      return inspectFolder(i.folder, homeOf(ctx));
    },

    async listBackups() {
      const folder = backupFolderOf(ctx);
      const withSecrets = await sealedBackupsWithSecrets(ctx);
      const backups = (folder ? listBackupFiles(folder) : []).map((b) => ({
        ...b,
        mayHoldSecrets: withSecrets.has(path.basename(b.file)),
      }));
      return { folder, backups };
    },

    setDataFolder: refuse('moving the data folder'),
    setEmbeddingModel: refuse('changing the embedding model'),
    restoreBackup: refuse('restoring a backup'),
  };
}
