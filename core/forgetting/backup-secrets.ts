import fs from 'node:fs';
import path from 'node:path';
import type { EngineContext } from '../context/engine-context.js';
import { backupFolder, listBackupFiles } from '../store/data-folder.js';
import { Store } from '../store/store.js';
import { quantity } from '../text/describe.js';
import { scrubWithNewRules } from './secrets.js';

export interface BackupScrubOutcome {
  /** Backups that held secrets today's rules catch, written again without them. */
  filtered: number;
  /** Encrypted backups made before: they cannot be opened without their passphrase, which is never kept. */
  sealed: number;
}

/** What the person is told of encrypted backups that may hold what was taken out. */
export function sealedBackupsWarning(sealed: number): string {
  return (
    `${quantity(sealed, 'encrypted backup')} made before may still hold secrets that older privacy rules let through: ` +
    'Nemori cannot open them without their passphrase. Delete those you do not need.'
  );
}

/** What a filtering left behind when it stopped part way: it holds what it was taking out. */
const WORK = /^\.filtering-|\.filtering$/;

/** Where the store records that backups made before a time hold secrets taken out of the memory since. */
const BACKUPS_TO_FILTER = 'privacy.backupsToFilter';
/** And the encrypted ones among them, by file name: they cannot be filtered. */
const SEALED_WITH_SECRETS = 'privacy.sealedBackupsWithSecrets';

/** The names of the encrypted backups that may still hold secrets older privacy rules let through. */
export async function sealedBackupsWithSecrets(ctx: EngineContext): Promise<Set<string>> {
  const kept = await ctx.store.read.settings.get(SEALED_WITH_SECRETS);
  return new Set(Array.isArray(kept?.files) ? kept.files.filter((f): f is string => typeof f === 'string') : []);
}

/**
 * Records that the backups made before `before` hold secrets just taken out of the memory, so they are
 * filtered too (`filterBackups`) — also after a restart, when a filtering stopped part way.
 */
export async function backupsToFilter(ctx: EngineContext, before: Date): Promise<void> {
  await ctx.store.transaction((r) => r.settings.put(BACKUPS_TO_FILTER, { before: before.toISOString() }));
}

/**
 * After a scrub begun at `started` that replaced `secrets` copies: the backups made before it are
 * recorded (`backupsToFilter`) when it replaced any, then filtered with any a stopped filtering left.
 */
export async function filterBackupsAfter(
  ctx: EngineContext,
  secrets: number,
  started: Date,
  o: { signal?: AbortSignal | undefined } = {},
): Promise<BackupScrubOutcome | null> {
  if (secrets > 0) await backupsToFilter(ctx, started);
  return filterBackups(ctx, o);
}

/**
 * The data folder's backups that `backupsToFilter` named, filtered as the memory was when older rules
 * had let secrets through (core/forgetting/secrets.ts): each plain one is unpacked beside it as a store
 * of its own, filtered for every owner, and written again in its place under the same name and time, so
 * restoring it brings back no secret. One that held nothing the rules catch is left as it was. Null
 * when none were named.
 */
export function filterBackups(ctx: EngineContext, o: { signal?: AbortSignal | undefined } = {}): Promise<BackupScrubOutcome | null> {
  // One filtering at a time per store (a rebuild and the background pass may both ask): each clears
  // what a stopped one left beside the backups, which would be the other's work under way.
  const next = (filtering.get(ctx.store) ?? Promise.resolve()).catch(() => {}).then(() => filterNamedBackups(ctx, o));
  filtering.set(ctx.store, next);
  return next;
}
const filtering = new WeakMap<Store, Promise<unknown>>();

async function filterNamedBackups(ctx: EngineContext, o: { signal?: AbortSignal | undefined }): Promise<BackupScrubOutcome | null> {
  const named = await ctx.store.read.settings.get(BACKUPS_TO_FILTER);
  if (!named || !ctx.store.dir || !ctx.config.privacy.enabled) return null;
  const before = Date.parse(String(named.before));
  const out: BackupScrubOutcome = { filtered: 0, sealed: 0 };
  const sealed = await sealedBackupsWithSecrets(ctx);
  const folder = backupFolder(ctx.store.dir);
  if (fs.existsSync(folder))
    for (const name of fs.readdirSync(folder)) if (WORK.test(name)) fs.rmSync(path.join(folder, name), { recursive: true, force: true });
  for (const b of listBackupFiles(folder)) {
    if (o.signal?.aborted) return out;
    if (Date.parse(b.at) >= before) continue;
    if (b.encrypted) {
      out.sealed++;
      sealed.add(path.basename(b.file));
    } else if (await scrubBackup(ctx, b.file, o.signal)) out.filtered++;
  }
  if (o.signal?.aborted) return out;
  await ctx.store.transaction(async (r) => {
    await r.settings.put(BACKUPS_TO_FILTER, null);
    await r.settings.put(SEALED_WITH_SECRETS, sealed.size > 0 ? { files: [...sealed] } : null);
  });
  return out;
}

async function scrubBackup(ctx: EngineContext, file: string, signal: AbortSignal | undefined): Promise<boolean> {
  const work = fs.mkdtempSync(path.join(path.dirname(file), '.filtering-'));
  try {
    await Store.unpackBackup(work, file);
    const store = await Store.open({ dir: work });
    try {
      // No LLM is asked anything here: filtering only replaces words.
      const found = await scrubWithNewRules({ ...ctx, store, llm: null }, { signal });
      if (!found || found.secrets === 0 || signal?.aborted) return false;
      const next = `${file}.filtering`;
      await store.backup(next);
      const { atime, mtime } = fs.statSync(file);
      fs.renameSync(next, file);
      fs.utimesSync(file, atime, mtime);
      return true;
    } finally {
      await store.close();
    }
  } finally {
    fs.rmSync(work, { recursive: true, force: true });
  }
}
