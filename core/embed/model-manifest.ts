/**
 * A small JSON file beside a model's files recording their sha256 and size, so a model
 * downloaded once (or generated, or bundled) can be verified on every later open
 * without the network.
 */
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { readFile, rename, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';
import { EmbedError } from './errors.js';

export const MANIFEST_FILE = 'nemori-model.json';

const Sha256Schema = z.string().regex(/^[0-9a-f]{64}$/, 'a lowercase hex sha256');

export const ModelManifestSchema = z.object({
  modelId: z.string().min(1),
  files: z.record(z.string().min(1), z.object({ sha256: Sha256Schema, bytes: z.number().int().nonnegative() })),
});
export type ModelManifest = z.infer<typeof ModelManifestSchema>;

export async function sha256File(path: string): Promise<string> {
  const hash = createHash('sha256');
  // Streamed: real model files are hundreds of MB.
  for await (const chunk of createReadStream(path)) hash.update(chunk as Buffer);
  return hash.digest('hex');
}

export async function computeManifest(dir: string, modelId: string, files: readonly string[]): Promise<ModelManifest> {
  const entries: ModelManifest['files'] = {};
  for (const file of files) {
    const path = join(dir, file);
    const { size } = await stat(path);
    entries[file] = { sha256: await sha256File(path), bytes: size };
  }
  return { modelId, files: entries };
}

export function serializeManifest(manifest: ModelManifest): string {
  return `${JSON.stringify(manifest, null, 2)}\n`;
}

/** Returns undefined when there is no manifest; throws when there is one we cannot trust. */
export async function readManifest(dir: string): Promise<ModelManifest | undefined> {
  const path = join(dir, MANIFEST_FILE);
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  const parsed = ModelManifestSchema.safeParse(json);
  if (!parsed.success) {
    throw new EmbedError(
      'MODEL_CHECKSUM_MISMATCH',
      `${path} is damaged (not a valid model manifest), so the model files cannot be verified; ` +
        `delete the model folder to download it again, or restore the file`,
    );
  }
  return parsed.data;
}

export async function writeManifest(dir: string, manifest: ModelManifest): Promise<void> {
  const path = join(dir, MANIFEST_FILE);
  // Write-then-rename so a crash never leaves a half-written manifest that fails every later open.
  const tmp = `${path}.tmp-${process.pid}`;
  await writeFile(tmp, serializeManifest(manifest));
  await rename(tmp, path);
}

export interface FileMismatch {
  readonly file: string;
  readonly expected: string;
  /** `undefined` when the file is missing. */
  readonly actual: string | undefined;
}

/**
 * Hashes each file that has an expected checksum. A size recorded in the manifest is
 * compared first so a truncated file fails without reading hundreds of MB.
 */
export async function findMismatches(
  dir: string,
  expected: Readonly<Record<string, { readonly sha256: string; readonly bytes?: number }>>,
): Promise<FileMismatch[]> {
  const mismatches: FileMismatch[] = [];
  for (const [file, want] of Object.entries(expected)) {
    const path = join(dir, file);
    let size: number;
    try {
      size = (await stat(path)).size;
    } catch {
      mismatches.push({ file, expected: want.sha256, actual: undefined });
      continue;
    }
    if (want.bytes !== undefined && want.bytes !== size) {
      mismatches.push({ file, expected: want.sha256, actual: `(${size} bytes, expected ${want.bytes})` });
      continue;
    }
    const actual = await sha256File(path);
    if (actual !== want.sha256) mismatches.push({ file, expected: want.sha256, actual });
  }
  return mismatches;
}

export function describeMismatches(mismatches: readonly FileMismatch[]): string {
  return mismatches
    .map((m) =>
      m.actual === undefined
        ? `${m.file} is missing`
        : `${m.file} has sha256 ${m.actual.startsWith('(') ? m.actual : short(m.actual)}, expected ${short(m.expected)}`,
    )
    .join('; ');
}

function short(hash: string): string {
  return `${hash.slice(0, 12)}…`;
}
