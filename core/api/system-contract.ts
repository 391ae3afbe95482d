import { z } from 'zod';
import { PrivacyConfig } from '../context/privacy-config.js';

/** The store as a whole: counts, health, the app's own settings, backups, and cancelling a call. */

/** How many of an owner's conversations came from one source (importer format or `api`). */
export const SourceCount = z.object({ source: z.string(), conversations: z.number().int() });

export const OwnerStats = z.object({
  ownerId: z.string(),
  conversations: z.number().int(),
  messages: z.number().int(),
  episodes: z.number().int(),
  embedded: z.number().int(),
  lastWrite: z.string().nullable(),
  /** Conversations per source (importer format or `api`), most first: what search can be narrowed to. */
  sources: z.array(SourceCount),
});
export const StatsOutput = z.object({ owners: z.array(OwnerStats) });

/** Whether the configured LLM answers (its model list; no tokens spent). */
export const LlmHealth = z.object({
  configured: z.boolean(),
  /** null when no LLM is configured. */
  reachable: z.boolean().nullable(),
  model: z.string().nullable(),
  baseUrl: z.string().nullable(),
  /** Whether the endpoint lists the model (null when it has no model list or was not reached). */
  modelListed: z.boolean().nullable(),
  latencyMs: z.number().nullable(),
  error: z.object({ code: z.string(), message: z.string() }).nullable(),
});

export const HealthOutput = z.object({
  ok: z.boolean(),
  home: z.string().nullable(),
  database: z.object({
    status: z.enum(['ok', 'error']),
    schemaVersion: z.number().int(),
    openMs: z.number(),
    sizeBytes: z.number().nullable(),
    /** The write-ahead log's share of it (bounded: checkpoints recycle it). */
    walBytes: z.number(),
  }),
  embedding: z.object({
    available: z.boolean(),
    modelId: z.string(),
    source: z.string().nullable(),
    reason: z.string().nullable(),
  }),
  llm: LlmHealth,
  owners: z.array(OwnerStats),
  /**
   * What the checks found wrong (each makes `ok` false): the indexes against the episodes, messages and
   * episodes against each other, and with `deep` every keyword posting against its episode's own and
   * PostgreSQL's B-tree check of every index.
   */
  problems: z.array(
    z.object({
      ownerId: z.string().nullable(),
      check: z.enum(['keyword-index', 'vectors', 'messages-without-episode', 'episodes-without-messages', 'btree']),
      count: z.number().int(),
      message: z.string(),
    }),
  ),
  /** Whether the checks ran (`checks: false` leaves them out): `ok` and `problems` speak only for checks that ran. */
  checked: z.boolean(),
  deep: z.boolean(),
  warnings: z.array(z.string()),
});

/** Health's warning for an embedding model that could not load (the status line above it says that much already). */
export function modelUnavailableWarning(reason: string | null): string {
  return `embedding model unavailable (${reason ?? 'unknown reason'}): search is keyword-only`;
}

export const HealthInput = z.object({
  /**
   * False: the store's status, sizes, counts and models only, none of the checks — for a screen that
   * shows no problems. The checks read whole tables (about 2 s at 100k episodes), and the store answers
   * nothing else meanwhile: a companion's call would wait on them.
   */
  checks: z.boolean().default(true),
  /** Also compare every keyword posting with its episode's and run PostgreSQL's B-tree check (amcheck) over every index: reads the whole store. */
  deep: z.boolean().default(false),
});

export const EngineSettingsView = z.object({
  forgetting: z.object({ enabled: z.boolean(), archiveThreshold: z.number(), trashThreshold: z.number(), trashRetentionDays: z.number() }),
  knowledge: z.object({ maxFacts: z.number().int(), maxTokens: z.number().int() }),
  /** The privacy filter: on or off, each kind of secret, the person's own patterns (core/privacy). */
  privacy: PrivacyConfig,
  /** Where everything is kept (null: an in-memory engine). Changed with setDataFolder (startup-contract.ts). */
  dataDir: z.string().nullable(),
});
export const SetEngineSettingsInput = z.object({
  forgetting: EngineSettingsView.shape.forgetting
    .partial()
    .extend({
      archiveThreshold: z.number().positive().optional(),
      trashThreshold: z.number().positive().optional(),
      trashRetentionDays: z.number().min(0).max(3650).optional(),
    })
    .optional(),
  knowledge: z.object({ maxFacts: z.number().int().min(1).optional(), maxTokens: z.number().int().min(100).optional() }).optional(),
  /** Kinds given are switched as given, the others stay; `patterns` replaces the list. */
  privacy: z
    .object({
      enabled: z.boolean().optional(),
      kinds: PrivacyConfig.shape.kinds.removeDefault().partial().optional(),
      patterns: PrivacyConfig.shape.patterns.removeDefault().optional(),
    })
    .optional(),
});
/** A passphrase that seals a backup or an export: it never reaches a log, the store or an error message. */
export const Passphrase = z.string().min(8, 'a passphrase has at least 8 characters');
export const BackupInput = z
  .object({
    /** A folder to write the backup into; default `<data folder>/backups`. */
    folder: z.string().min(1).optional(),
    /** Encrypt it with this passphrase (AES-256-GCM, key by scrypt): `.tar.gz.enc`. Without one: plain `.tar.gz`. */
    passphrase: Passphrase.optional(),
  })
  .strict();
export const BackupOutput = z.object({ file: z.string(), bytes: z.number().int(), at: z.string(), encrypted: z.boolean() });

export const systemOperations = {
  stats: { input: z.object({ ownerId: z.string().optional() }), output: StatsOutput },
  /**
   * The sources an owner's conversations came from, most first — what search can be narrowed to — without
   * `stats`' counts (which read every message: ~0.5 s at a million, the store answering nothing else).
   */
  listSources: { input: z.object({ ownerId: z.string() }), output: z.object({ sources: z.array(SourceCount) }) },
  health: { input: HealthInput, output: HealthOutput },
  getEngineSettings: { input: z.object({}), output: EngineSettingsView },
  setEngineSettings: { input: SetEngineSettingsInput, output: EngineSettingsView },
  backup: { input: BackupInput, output: BackupOutput },
  /** Stops a running call by the id its caller gave it (an import stops after the conversation it is on). */
  cancelCall: { input: z.object({ callId: z.string().min(1) }), output: z.object({ cancelled: z.boolean() }) },
} as const;
