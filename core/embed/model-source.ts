/**
 * Where the embedding model comes from, decided in one place:
 *
 *  - `dir`    a folder given by the user (NEMORI_MODEL_DIR, `modelDir`) or shipped with
 *             the app (`bundledDir`, resources/models); loaded with remote loading off.
 *  - `cache`  a copy downloaded earlier into `<dataDir>/models/<modelId>`; also remote off.
 *  - `remote` not on disk yet and downloading is allowed: transformers.js fetches it
 *             (from the Hub or NEMORI_HF_MIRROR) into `<dataDir>/models` on first use.
 *
 * All three are then loaded by the same transformers.js local-model path; only the
 * env settings differ. Files are checked against known sha256s (model-specs.ts) and
 * against the manifest written after the first download, so later opens verify offline.
 */
import { access, rm } from 'node:fs/promises';
import { basename, dirname, join, resolve } from 'node:path';
import { z } from 'zod';
import { EmbedError } from './errors.js';
import { computeManifest, describeMismatches, findMismatches, MANIFEST_FILE, readManifest, writeManifest } from './model-manifest.js';
import { DEFAULT_MODEL_ID, MODEL_DTYPES, specFor, type ModelSpec } from './model-specs.js';

export const MODEL_DIR_ENV = 'NEMORI_MODEL_DIR';
export const MIRROR_ENV = 'NEMORI_HF_MIRROR';
export const ALLOW_DOWNLOAD_ENV = 'NEMORI_ALLOW_DOWNLOAD';
export const DEFAULT_REMOTE_HOST = 'https://huggingface.co/';

const Sha256Schema = z.string().regex(/^[0-9a-f]{64}$/, 'a lowercase hex sha256');

export const ModelSourceOptionsSchema = z.object({
  /** Hub id of the model; defaults to multilingual-e5-small. */
  modelId: z.string().min(1).optional(),
  /** Precision to load; defaults to the spec's (q8 for e5, fp32 otherwise). */
  dtype: z.enum(MODEL_DTYPES).optional(),
  /** A model folder, or a folder holding `<modelId>/`. Overrides NEMORI_MODEL_DIR. */
  modelDir: z.string().min(1).optional(),
  /**
   * A folder holding `<modelId>/` shipped with the app (resources/models). Used when the
   * model is there and silently skipped when it is not, so unbundled builds download.
   */
  bundledDir: z.string().min(1).optional(),
  /** The app's data directory; downloads go to `<dataDir>/models`. */
  dataDir: z.string().min(1).optional(),
  /** Fetch the model when it is not on disk. Defaults to NEMORI_ALLOW_DOWNLOAD=1, else off. */
  allowDownload: z.boolean().optional(),
  /** Hub-compatible host to download from. Overrides NEMORI_HF_MIRROR. */
  mirror: z.url({ protocol: /^https?$/ }).optional(),
  /** Extra expected checksums (file → sha256), e.g. to pin a model not in the spec table. */
  checksums: z.record(z.string().min(1), Sha256Schema).optional(),
  /** Hash files against manifest/spec before loading. On by default; off only for experiments. */
  verify: z.boolean().optional(),
});

export type ModelSourceOptions = z.input<typeof ModelSourceOptionsSchema> & {
  /** Environment to read NEMORI_* from; defaults to process.env (tests pass their own). */
  readonly environment?: Readonly<Record<string, string | undefined>>;
};

export type ModelSourceKind = 'dir' | 'cache' | 'remote';

export interface ModelSource {
  readonly kind: ModelSourceKind;
  readonly modelId: string;
  readonly spec: ModelSpec;
  /** Absolute folder holding (or about to hold) config.json, tokenizer.json, onnx/…. */
  readonly dir: string;
  /** `env.localModelPath` for transformers.js. */
  readonly root: string;
  /** Model name given to `pipeline()`; resolves to `dir` under `root`. */
  readonly name: string;
  /** Download host, for `remote` only. */
  readonly remoteHost: string | undefined;
  /** Whether we may write a manifest into `dir` (never into a user's or the packaged folder). */
  readonly ownsDir: boolean;
  readonly verify: boolean;
  readonly checksums: Readonly<Record<string, string>>;
}

interface Settings {
  readonly modelId: string;
  readonly spec: ModelSpec;
  readonly modelDir: string | undefined;
  readonly modelDirFrom: string;
  readonly bundledDir: string | undefined;
  readonly dataDir: string | undefined;
  readonly allowDownload: boolean;
  readonly remoteHost: string;
  readonly verify: boolean;
  readonly checksums: Readonly<Record<string, string>>;
}

function settingsFrom(options: ModelSourceOptions): Settings {
  const { environment = process.env, ...rest } = options;
  const parsed = ModelSourceOptionsSchema.safeParse(rest);
  if (!parsed.success) {
    throw new EmbedError('INVALID_OPTIONS', `embedding model options: ${z.prettifyError(parsed.error)}`);
  }
  const o = parsed.data;
  const envDir = nonEmpty(environment[MODEL_DIR_ENV]);
  const envMirror = nonEmpty(environment[MIRROR_ENV]);
  if (o.mirror === undefined && envMirror !== undefined && !/^https?:\/\/\S+$/.test(envMirror)) {
    throw new EmbedError('INVALID_OPTIONS', `${MIRROR_ENV}="${envMirror}" is not an http(s) URL`);
  }
  const modelId = o.modelId ?? DEFAULT_MODEL_ID;
  return {
    modelId,
    spec: specFor(modelId, o.dtype),
    modelDir: o.modelDir ?? envDir,
    modelDirFrom: o.modelDir !== undefined ? 'the modelDir option' : MODEL_DIR_ENV,
    bundledDir: o.bundledDir !== undefined ? resolve(o.bundledDir) : undefined,
    dataDir: o.dataDir !== undefined ? resolve(o.dataDir) : undefined,
    allowDownload: o.allowDownload ?? environment[ALLOW_DOWNLOAD_ENV] === '1',
    remoteHost: o.mirror ?? envMirror ?? DEFAULT_REMOTE_HOST,
    verify: o.verify ?? true,
    checksums: o.checksums ?? {},
  };
}

function nonEmpty(value: string | undefined): string | undefined {
  return value !== undefined && value.trim() !== '' ? value.trim() : undefined;
}

async function exists(path: string): Promise<boolean> {
  try {
    await access(path);
    return true;
  } catch {
    return false;
  }
}

async function missingFiles(dir: string, files: readonly string[]): Promise<string[]> {
  const missing: string[] = [];
  for (const file of files) if (!(await exists(join(dir, file)))) missing.push(file);
  return missing;
}

/** transformers.js treats a name matching a Hub id as relative to env.localModelPath (hub/constants.js). */
function isHubStyleName(name: string): boolean {
  return /^(\b[\w\-.]+\b\/)?\b[\w\-.]{1,96}\b$/.test(name) && !name.includes('..') && !name.includes('--');
}

/** Splits a model folder into env.localModelPath + pipeline name. */
function addressOf(dir: string): { root: string; name: string } {
  const name = basename(dir);
  // Any other folder name is passed whole: transformers.js then reads it as a plain path.
  return isHubStyleName(name) ? { root: dirname(dir), name } : { root: dirname(dir), name: dir };
}

export function modelsDir(dataDir: string): string {
  return join(dataDir, 'models');
}

function filesList(spec: ModelSpec): string {
  return spec.files.join(', ');
}

/**
 * Decides where the model comes from without reading weights. Throws MODEL_UNAVAILABLE
 * with what to do when it is nowhere and cannot be fetched.
 */
export async function resolveModelSource(options: ModelSourceOptions = {}): Promise<ModelSource> {
  const s = settingsFrom(options);
  const base = { modelId: s.modelId, spec: s.spec, verify: s.verify, checksums: s.checksums };

  if (s.modelDir !== undefined) {
    const given = resolve(s.modelDir);
    // Either the model folder itself, or a models folder laid out like the download cache.
    const candidates = [join(given, s.modelId), given];
    for (const dir of candidates) {
      if ((await missingFiles(dir, s.spec.files)).length === 0) {
        return { ...base, kind: 'dir', dir, ...addressOf(dir), remoteHost: undefined, ownsDir: false };
      }
    }
    const missing = await missingFiles(given, s.spec.files);
    const what = (await exists(given)) ? `is missing ${missing.join(', ')}` : 'does not exist';
    throw new EmbedError(
      'MODEL_UNAVAILABLE',
      `embedding model ${s.modelId} was not found: ${given} (from ${s.modelDirFrom}) ${what}; ` +
        `point ${MODEL_DIR_ENV} at a folder containing ${filesList(s.spec)}, or at a folder holding ${s.modelId}/`,
    );
  }

  if (s.bundledDir !== undefined) {
    const dir = join(s.bundledDir, s.modelId);
    if ((await missingFiles(dir, s.spec.files)).length === 0) {
      return { ...base, kind: 'dir', dir, ...addressOf(dir), remoteHost: undefined, ownsDir: false };
    }
  }

  if (s.dataDir !== undefined) {
    const root = modelsDir(s.dataDir);
    const dir = join(root, s.modelId);
    if ((await missingFiles(dir, s.spec.files)).length === 0) {
      return { ...base, kind: 'cache', dir, root, name: s.modelId, remoteHost: undefined, ownsDir: true };
    }
    if (s.allowDownload) {
      if (!isHubStyleName(s.modelId)) {
        throw new EmbedError(
          'MODEL_UNAVAILABLE',
          `embedding model "${s.modelId}" is not a Hub model id, so it cannot be downloaded; set ${MODEL_DIR_ENV}`,
        );
      }
      return { ...base, kind: 'remote', dir, root, name: s.modelId, remoteHost: s.remoteHost, ownsDir: true };
    }
  }

  const where = s.dataDir !== undefined ? ` into ${modelsDir(s.dataDir)}` : '';
  const download = s.allowDownload
    ? `; downloading needs the app's data directory (dataDir)`
    : `, or allow downloading it${where} (${ALLOW_DOWNLOAD_ENV}=1${s.dataDir === undefined ? ' with a data directory' : ''})`;
  throw new EmbedError(
    'MODEL_UNAVAILABLE',
    `embedding model ${s.modelId} is not downloaded and remote loading is off; ` +
      `set ${MODEL_DIR_ENV} to a folder containing ${filesList(s.spec)}${download}`,
  );
}

export type Verification = 'spec' | 'manifest' | 'recorded' | 'unverified';

/**
 * Checks the files in `source.dir` against the spec's checksums, the caller's pins and the
 * manifest. In a folder we own, a missing manifest is written (trust on first use), so
 * tampering or bit rot after that is caught offline.
 */
export async function verifyModelFiles(source: ModelSource): Promise<Verification> {
  // Just downloaded: a manifest left from an older copy would describe other bytes.
  const manifest = source.kind === 'remote' ? undefined : await readManifest(source.dir);
  if (manifest !== undefined && manifest.modelId !== source.modelId) {
    // Same file names, different model: loading it would store vectors under the wrong model id.
    throw new EmbedError(
      source.kind === 'dir' ? 'MODEL_UNAVAILABLE' : 'MODEL_CHECKSUM_MISMATCH',
      `${source.dir} holds embedding model ${manifest.modelId} (per ${MANIFEST_FILE}), not ${source.modelId}; ` +
        (source.kind === 'dir'
          ? `point ${MODEL_DIR_ENV} at a copy of ${source.modelId}, or choose model ${manifest.modelId}`
          : `delete ${source.dir} to download it again`),
    );
  }
  const pinned = { ...source.spec.sha256, ...source.checksums };
  const expected: Record<string, { sha256: string; bytes?: number }> = {};
  for (const file of source.spec.files) {
    const recorded = manifest?.files[file];
    const pin = pinned[file];
    if (pin !== undefined) expected[file] = { sha256: pin, ...(recorded?.sha256 === pin ? { bytes: recorded.bytes } : {}) };
    else if (recorded !== undefined) expected[file] = recorded;
  }

  const mismatches = await findMismatches(source.dir, expected);
  if (mismatches.length > 0) {
    const fresh = source.kind === 'remote';
    if (fresh) {
      // A bad download must not be picked up as a finished cache entry on the next open.
      await Promise.all(mismatches.map((m) => rm(join(source.dir, m.file), { force: true })));
    }
    throw new EmbedError(
      'MODEL_CHECKSUM_MISMATCH',
      fresh
        ? `downloaded embedding model ${source.modelId} failed verification (${describeMismatches(mismatches)}); ` +
            `the bad files were removed. Retry, or if it fails again, check ${MIRROR_ENV} or set ${MODEL_DIR_ENV} to a trusted copy`
        : `embedding model files in ${source.dir} do not match their checksums (${describeMismatches(mismatches)}); ` +
            `they are damaged or were replaced. ` +
            (source.ownsDir ? `Delete ${source.dir} to download the model again` : `Copy the model folder again from a trusted source`),
    );
  }

  if (manifest !== undefined) return 'manifest';
  if (source.ownsDir) {
    await writeManifest(source.dir, await computeManifest(source.dir, source.modelId, source.spec.files));
    return Object.keys(expected).length > 0 ? 'spec' : 'recorded';
  }
  return Object.keys(expected).length > 0 ? 'spec' : 'unverified';
}

export interface EmbedderProbe {
  /** True when `openEmbedder` with the same options would find or fetch the model. */
  readonly available: boolean;
  readonly modelId: string;
  readonly source: ModelSourceKind | 'none';
  /** Folder the model is (or would be downloaded) in. */
  readonly location: string | undefined;
  readonly dimensions: number | undefined;
  /** The model is not on disk yet; opening will download it. */
  readonly needsDownload: boolean;
  /** A manifest or known checksums exist, so opening will verify the files. */
  readonly verifiable: boolean;
  readonly reason: string | undefined;
}

/** Cheap availability check for a health command: looks at files, never loads or hashes weights. */
export async function probeEmbedder(options: ModelSourceOptions = {}): Promise<EmbedderProbe> {
  try {
    const source = await resolveModelSource(options);
    const pinned = Object.keys({ ...source.spec.sha256, ...source.checksums }).length > 0;
    const hasManifest = source.kind !== 'remote' && (await exists(join(source.dir, MANIFEST_FILE)));
    return {
      available: true,
      modelId: source.modelId,
      source: source.kind,
      location: source.dir,
      dimensions: source.spec.dimensions,
      needsDownload: source.kind === 'remote',
      verifiable: pinned || hasManifest || source.ownsDir,
      reason: source.kind === 'remote' ? `will download from ${source.remoteHost} on first use` : undefined,
    };
  } catch (error) {
    if (!(error instanceof EmbedError)) throw error;
    const modelId = options.modelId ?? DEFAULT_MODEL_ID;
    return {
      available: false,
      modelId,
      source: 'none',
      location: undefined,
      dimensions: specFor(modelId).dimensions,
      needsDownload: false,
      verifiable: false,
      reason: error.message,
    };
  }
}
