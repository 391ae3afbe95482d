import fs from 'node:fs';
import path from 'node:path';
import { NemoriError } from '../../domain/errors.js';
import { readWatchedFiles } from '../../ingest/watched-folder.js';
import type { WatchedFolderView } from '../../ingest/watch-report.js';
import type { Handlers, HandlerEnv } from '../handler.js';
import { saveEngineSettings } from './system.js';

/** Reports shown in Settings → Import. */
const SHOWN = 20;

export function watchedFolderHandlers({ ctx, explicitConfig, watcher }: HandlerEnv): Handlers<'getWatchedFolder' | 'setWatchedFolder'> {
  async function view(): Promise<WatchedFolderView> {
    const { folder, ownerId } = ctx.config.watch;
    const status = watcher?.status() ?? { watching: false, problem: null };
    const recent = folder ? (await readWatchedFiles(ctx)).filter((f) => path.dirname(f.file) === folder).slice(0, SHOWN) : [];
    return { folder, ownerId, watching: status.watching, problem: status.problem, recent };
  }

  return {
    getWatchedFolder: view,

    async setWatchedFolder({ folder, ownerId }) {
      let chosen: string | null = null;
      if (folder !== null) {
        if (!path.isAbsolute(folder))
          throw new NemoriError('INVALID_INPUT', `setWatchedFolder: folder: give a full path (${folder} is relative)`);
        chosen = path.resolve(folder);
        let isFolder = false;
        try {
          isFolder = fs.statSync(chosen).isDirectory();
        } catch {
          // missing or unreadable: refused below
        }
        if (!isFolder) throw new NemoriError('INVALID_INPUT', `${chosen} is not a folder Nemori can read`);
      }
      await saveEngineSettings(ctx, explicitConfig, { watch: { folder: chosen, ownerId } });
      watcher?.start();
      return view();
    },
  };
}
