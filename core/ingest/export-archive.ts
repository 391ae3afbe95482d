import fs from 'node:fs';
import path from 'node:path';
import yazl from 'yazl';
import { z } from 'zod';
import type { EngineContext } from '../context/engine-context.js';
import { NemoriError } from '../domain/errors.js';
import { isSealed, isSealedFile, seal, unseal } from '../store/backup-crypto.js';
import { MEMORY_TABLES, type MemoryTable } from '../store/memory-tables.js';
import { rebuildKeywordIndex } from '../episodes/lifecycle.js';
import { readZipBuffer, zipEntryNamesSync } from './zip.js';

/**
 * The open export of a memory (docs/export-format.md): a zip of JSON Lines, one file per table of the
 * owner's memory, with a manifest naming the format, its schema version and the rows of every file;
 * optionally sealed with a passphrase like a backup. Importing it into an empty memory gives back the
 * same ids, rows, fact versions and search results.
 */

export const EXPORT_FORMAT = 'nemori-export';
export const EXPORT_SCHEMA_VERSION = 1;
export const MANIFEST_FILE = 'nemori-export.json';
const SETTINGS_FILE = 'settings.jsonl';

export const ExportManifest = z.object({
  format: z.literal(EXPORT_FORMAT),
  schemaVersion: z.number().int().min(1),
  exportedAt: z.string(),
  /** The store's migration version the rows were read at. */
  storeSchema: z.number().int(),
  ownerId: z.string(),
  files: z.array(
    z.object({
      file: z.string(),
      table: z.string(),
      rows: z.number().int().min(0),
      /** An index Nemori can rebuild from the other files (vectors, keyword postings). */
      derived: z.boolean(),
    }),
  ),
});
export type ExportManifest = z.infer<typeof ExportManifest>;

export interface ExportResult {
  file: string;
  bytes: number;
  encrypted: boolean;
  /** Rows per table. */
  counts: Record<string, number>;
}

function zipToBuffer(files: readonly { name: string; data: Buffer }[]): Promise<Buffer> {
  const zip = new yazl.ZipFile();
  for (const f of files) zip.addBuffer(f.data, f.name, { mtime: new Date(0) });
  zip.end();
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    zip.outputStream.on('data', (c: Buffer) => chunks.push(c));
    zip.outputStream.on('error', reject);
    zip.outputStream.on('end', () => resolve(Buffer.concat(chunks)));
  });
}

const jsonl = (rows: readonly unknown[]) => Buffer.from(rows.map((r) => `${JSON.stringify(r)}\n`).join(''), 'utf8');

/** Writes an owner's whole memory to `file` (sealed with `passphrase` when given); readable by the person only. */
export async function exportMemory(
  ctx: EngineContext,
  i: { ownerId: string; file: string; passphrase?: string | undefined },
): Promise<ExportResult> {
  const read = ctx.store.read.memoryTables;
  const files: { name: string; data: Buffer }[] = [];
  const manifest: ExportManifest = {
    format: EXPORT_FORMAT,
    schemaVersion: EXPORT_SCHEMA_VERSION,
    exportedAt: ctx.clock.now().toISOString(),
    storeSchema: await ctx.store.schemaVersion(),
    ownerId: i.ownerId,
    files: [],
  };
  const counts: Record<string, number> = {};
  for (const t of MEMORY_TABLES) {
    const rows: Record<string, unknown>[] = [];
    for await (const page of read.rows(i.ownerId, t)) rows.push(...page);
    files.push({ name: t.file, data: jsonl(rows) });
    manifest.files.push({ file: t.file, table: t.table, rows: rows.length, derived: t.derived });
    counts[t.table] = rows.length;
  }
  const settings = await read.settings();
  files.push({ name: SETTINGS_FILE, data: jsonl(settings) });
  manifest.files.push({ file: SETTINGS_FILE, table: 'settings', rows: settings.length, derived: false });
  files.unshift({ name: MANIFEST_FILE, data: Buffer.from(`${JSON.stringify(manifest, null, 2)}\n`, 'utf8') });

  const zip = await zipToBuffer(files);
  const out = i.passphrase === undefined ? zip : await seal(zip, i.passphrase);
  fs.mkdirSync(path.dirname(i.file), { recursive: true });
  fs.writeFileSync(i.file, out, { mode: 0o600 });
  return { file: i.file, bytes: out.length, encrypted: i.passphrase !== undefined, counts };
}

/** Whether a file is a Nemori export: sealed (only exports and backups are), or a zip with the manifest. */
export function isNemoriExport(file: string): boolean {
  return isSealedFile(file) || (zipEntryNamesSync(file)?.includes(MANIFEST_FILE) ?? false);
}

/** The store schema from which an episode's recalls are rows of their own (before, columns of the episode's row). */
const RECALLS_APART = 23;

/** The recalls an export written before RECALLS_APART carries on its episodes' rows. */
function recallsOf(episodes: readonly Record<string, unknown>[]): Record<string, unknown>[] {
  return episodes.flatMap((e) =>
    Number(e.recall_count ?? 0) > 0 || e.last_accessed != null
      ? [{ episode_id: e.id, owner_id: e.owner_id, recall_count: Number(e.recall_count ?? 0), last_accessed: e.last_accessed ?? null }]
      : [],
  );
}

function parseLines(data: Buffer, file: string): Record<string, unknown>[] {
  return data
    .toString('utf8')
    .split('\n')
    .filter((l) => l.length > 0)
    .map((l, n) => {
      try {
        return JSON.parse(l) as Record<string, unknown>;
      } catch {
        throw new NemoriError('INVALID_INPUT', `${file}: line ${n + 1} is not JSON`);
      }
    });
}

export interface ImportExportResult {
  ownerId: string;
  exportedAt: string;
  counts: Record<string, number>;
}

/**
 * Reads an export back into an owner's memory, which must be empty (ids are kept, so a second copy
 * could not live beside the first). Everything is checked — the passphrase, the manifest, every file
 * and its row count — before one transaction writes it all.
 */
export async function importMemoryExport(
  ctx: EngineContext,
  i: { ownerId: string; file: string; passphrase?: string | undefined },
): Promise<ImportExportResult> {
  const name = path.basename(i.file);
  let bytes: Buffer;
  try {
    bytes = fs.readFileSync(i.file);
  } catch (e) {
    throw new NemoriError('NOT_FOUND', `cannot read ${i.file}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
  }
  if (isSealed(bytes)) {
    if (i.passphrase === undefined) throw new NemoriError('INVALID_INPUT', `${name} is encrypted: give its passphrase to import it`);
    bytes = await unseal(bytes, i.passphrase, name);
  }
  const entries = await readZipBuffer(bytes, name);
  const rawManifest = entries.get(MANIFEST_FILE);
  if (!rawManifest) throw new NemoriError('INVALID_INPUT', `${name} is not a Nemori export (it has no ${MANIFEST_FILE})`);
  const parsed = ExportManifest.safeParse(JSON.parse(rawManifest.toString('utf8')));
  if (!parsed.success) throw new NemoriError('INVALID_INPUT', `${name}: ${MANIFEST_FILE} is not a Nemori export manifest`);
  const manifest = parsed.data;
  if (manifest.schemaVersion > EXPORT_SCHEMA_VERSION) {
    throw new NemoriError(
      'INVALID_INPUT',
      `${name} is a Nemori export of schema ${manifest.schemaVersion}; this Nemori reads up to ${EXPORT_SCHEMA_VERSION}: update Nemori`,
    );
  }
  if (manifest.storeSchema > (await ctx.store.schemaVersion())) {
    throw new NemoriError('INVALID_INPUT', `${name} was written by a newer Nemori (store schema ${manifest.storeSchema}): update Nemori`);
  }
  const rowsOf = (file: string, table: string) => {
    const listed = manifest.files.find((f) => f.file === file);
    const data = entries.get(file);
    if (!listed || !data) throw new NemoriError('INVALID_INPUT', `${name} has no ${file} (the ${table} table)`);
    const rows = parseLines(data, file);
    if (rows.length !== listed.rows)
      throw new NemoriError('INVALID_INPUT', `${name}: ${file} has ${rows.length} rows, its manifest says ${listed.rows}`);
    return rows;
  };
  // Index rows an older store wrote in another shape are left out; the index is rebuilt from the episodes.
  const reshaped = (t: MemoryTable) => t.derived && (t.shapeSince ?? 0) > manifest.storeSchema;
  const tables: { t: MemoryTable; rows: Record<string, unknown>[] }[] = [];
  for (const t of MEMORY_TABLES.filter((x) => !reshaped(x))) {
    const recallsOnEpisodes = t.table === 'episode_recalls' && manifest.storeSchema < RECALLS_APART;
    tables.push({ t, rows: recallsOnEpisodes ? recallsOf(tables.find((x) => x.t.table === 'episodes')!.rows) : rowsOf(t.file, t.table) });
  }
  const settings = rowsOf(SETTINGS_FILE, 'settings').map((r) => ({ key: String(r.key), value: r.value }));

  const present = await ctx.store.read.memoryTables.counts(i.ownerId);
  const busy = Object.entries(present).filter(([, n]) => n > 0);
  if (busy.length > 0) {
    throw new NemoriError(
      'INVALID_INPUT',
      `the memory of ${i.ownerId} is not empty (${busy.map(([t, n]) => `${n} ${t}`).join(', ')}): import an export into an empty memory or another owner`,
    );
  }
  try {
    await ctx.store.transaction(async (r) => {
      for (const { t, rows } of tables) {
        for (let at = 0; at < rows.length; at += 1000) await r.memoryTables.insert(i.ownerId, t, rows.slice(at, at + 1000));
        if (t.serial) await r.memoryTables.advanceSequence(t);
      }
      await r.memoryTables.mergeSettings(settings);
    });
  } catch (e) {
    // Ids are kept: the same memory already read back under another owner of this store collides.
    if ((e as { code?: string }).code === '23505') {
      throw new NemoriError(
        'INVALID_INPUT',
        `${name}: this store already holds its records (under another owner); import it into another data folder`,
      );
    }
    throw e;
  }
  if (MEMORY_TABLES.some(reshaped)) await rebuildKeywordIndex(ctx, i.ownerId, await ctx.store.read.episodes.ids(i.ownerId));
  await ctx.store.maintain(true);
  return {
    ownerId: i.ownerId,
    exportedAt: manifest.exportedAt,
    counts: Object.fromEntries(tables.map(({ t, rows }) => [t.table, rows.length])),
  };
}
