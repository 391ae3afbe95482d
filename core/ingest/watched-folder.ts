import fs from 'node:fs';
import path from 'node:path';
import type { z } from 'zod';
import type { EngineContext } from '../context/engine-context.js';
import type { ImportFilesInput, ImportFilesOutput } from './import-report.js';
import { WatchedFiles, type WatchedFile } from './watch-report.js';

/**
 * The watched folder: every export file that appears in it is imported once, through the import use
 * case, as soon as it is whole. It runs in the holder of the data folder (the process with the store
 * open) while a long-running host keeps it open.
 *
 * - Found by the file system's events (fs.watch) and a periodic full look at the folder, for the events
 *   a platform drops (network drives, a folder recreated, a host that was closed when files came).
 * - A file still being written is left alone: names browsers and editors give files in progress
 *   (`*.part`, `*.crdownload`, `*.tmp`, `.~lock…`, dotfiles), and any file whose size or modification
 *   time changed within the settle interval.
 * - Each file is remembered by path, size and modification time in the store, beside the settings, with
 *   its import report: not imported again after a restart; a file that failed is not retried until it
 *   changes. A backup restored brings back what that memory had seen, so a file imported since (whose
 *   messages the restore took away) is imported again.
 * - Only the folder's own files: not its subfolders (an export unzipped there is still being written
 *   for as long as the unzipping takes, with nothing to tell when it is done).
 */

/** The store key of what the watched folder has seen (core/store/settings.ts). */
export const WATCHED_FILES_KEY = 'watched-files';

/** Gone files whose reports stay listed in Settings. */
const RECENT = 20;

/** A name a program gives a file it has not finished writing, or a file that is not an export. */
export function isTemporaryName(name: string): boolean {
  return name.startsWith('.') || name.startsWith('~$') || /(\.(part|partial|crdownload|download|opdownload|tmp|temp|swp)|~)$/i.test(name);
}

export interface FolderWatcher {
  /** Watches what `ctx.config.watch` says now: once the engine can run calls, and again after the setting changed. */
  start(): void;
  status(): { watching: boolean; problem: string | null };
  /** Stops watching at once; the promise settles when an import under way has ended (the engine cancels it when it closes). */
  stop(): Promise<void>;
}

export interface WatchOptions {
  ctx: EngineContext;
  /** The import use case as the engine runs a call: announced to every window, cancelled when the engine closes. */
  importFiles(input: z.input<typeof ImportFilesInput>): Promise<ImportFilesOutput>;
}

export async function readWatchedFiles(ctx: EngineContext): Promise<WatchedFile[]> {
  const parsed = WatchedFiles.safeParse(await ctx.store.read.settings.get(WATCHED_FILES_KEY));
  return parsed.success ? parsed.data.files : [];
}

interface Seen {
  size: number;
  mtimeMs: number;
  /** When this size and time were first seen (this process's clock: the settle interval is real time). */
  since: number;
}

export function watchFolder(o: WatchOptions): FolderWatcher {
  const { ctx } = o;
  let folder: string | null = null;
  let watcher: fs.FSWatcher | null = null;
  let rescan: NodeJS.Timeout | null = null;
  let soon: NodeJS.Timeout | null = null;
  let problem: string | null = null;
  let stopped = false;
  /** Files seen changing, not yet imported. */
  const settling = new Map<string, Seen>();
  /** One look at the folder at a time. */
  let work: Promise<void> = Promise.resolve();

  const look = (delayMs: number) => {
    if (stopped || !folder) return;
    if (soon) clearTimeout(soon);
    soon = setTimeout(() => {
      soon = null;
      work = work.then(scan).catch((e: unknown) => ctx.warn(`watched folder: ${e instanceof Error ? e.message : String(e)}`));
    }, delayMs);
    soon.unref();
  };

  function unwatch(): void {
    watcher?.close();
    watcher = null;
    if (rescan) clearInterval(rescan);
    if (soon) clearTimeout(soon);
    rescan = soon = null;
    settling.clear();
  }

  /** The file system's events for the folder; a watch that breaks (the folder removed, a drive gone) is taken up again by the next look that can read it. */
  function watchEvents(dir: string): void {
    try {
      const w = fs.watch(dir, { persistent: false }, () => look(100));
      w.on('error', () => {
        w.close();
        if (watcher === w) watcher = null;
      });
      watcher = w;
    } catch {
      // Not watchable here: the periodic look still finds the files.
    }
  }

  function start(): void {
    unwatch();
    const cfg = ctx.config.watch;
    folder = cfg.folder;
    problem = null;
    if (!folder || stopped) return;
    watchEvents(folder);
    rescan = setInterval(() => look(0), cfg.rescanMs);
    rescan.unref();
    look(0);
  }

  async function scan(): Promise<void> {
    const dir = folder;
    if (stopped || !dir) return;
    const { settleMs, ownerId } = ctx.config.watch;
    let names: fs.Dirent[];
    try {
      names = await fs.promises.readdir(dir, { withFileTypes: true });
      problem = null;
      if (!watcher) watchEvents(dir);
    } catch (e) {
      problem = `${dir}: cannot read this folder (${(e as NodeJS.ErrnoException).code ?? String(e)})`;
      return;
    }
    const known = new Map((await readWatchedFiles(ctx)).map((f) => [f.file, f]));
    const now = Date.now();
    const ready: { file: string; size: number; mtimeMs: number }[] = [];
    const present = new Set<string>();
    for (const d of names) {
      if (isTemporaryName(d.name) || !(d.isFile() || d.isSymbolicLink())) continue;
      const file = path.join(dir, d.name);
      let st: fs.Stats;
      try {
        st = await fs.promises.stat(file);
      } catch {
        continue; // gone since the listing
      }
      if (!st.isFile()) continue;
      present.add(file);
      const before = known.get(file);
      if (before && before.size === st.size && before.mtimeMs === st.mtimeMs) continue;
      const s = settling.get(file);
      if (!s || s.size !== st.size || s.mtimeMs !== st.mtimeMs) settling.set(file, { size: st.size, mtimeMs: st.mtimeMs, since: now });
      else if (now - s.since >= settleMs) ready.push({ file, size: st.size, mtimeMs: st.mtimeMs });
    }
    for (const file of settling.keys()) if (!present.has(file)) settling.delete(file);
    if (stopped) return;
    if (ready.length > 0) await importReady(ready, ownerId, present);
    // Files still settling are looked at again once they may have settled.
    if ([...settling.keys()].some((f) => !ready.some((r) => r.file === f))) look(settleMs);
  }

  async function importReady(ready: { file: string; size: number; mtimeMs: number }[], ownerId: string, present: Set<string>) {
    const out = await o.importFiles({ ownerId, paths: ready.map((r) => r.file) });
    // Stopped half-way (the engine closing): the rest is imported next time, adding only what is missing.
    if (out.cancelled) return;
    const importedAt = ctx.clock.now().toISOString();
    const done: WatchedFile[] = ready.flatMap((r) => {
      const report = out.files.find((f) => f.file === r.file);
      settling.delete(r.file);
      return report ? [{ ...r, importedAt, report }] : [];
    });
    await ctx.store.transaction(async (w) => {
      const parsed = WatchedFiles.safeParse(await w.settings.get(WATCHED_FILES_KEY));
      const earlier = (parsed.success ? parsed.data.files : []).filter((f) => !done.some((d) => d.file === f.file));
      // Files still in the folder are remembered for as long as they are there; of the others, the last few.
      let gone = 0;
      const kept = earlier.filter((f) => present.has(f.file) || ++gone <= RECENT);
      await w.settings.put(WATCHED_FILES_KEY, { files: [...done, ...kept] });
    });
  }

  return {
    start,
    status: () => ({ watching: folder !== null && !stopped, problem }),
    stop() {
      stopped = true;
      unwatch();
      return work;
    },
  };
}
