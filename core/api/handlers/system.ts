import type { z } from 'zod';
import fs from 'node:fs';
import path from 'node:path';
import { ENGINE_SETTINGS_KEY, EngineConfig, layerConfig, type EngineContext } from '../../context/engine-context.js';
import { NemoriError } from '../../domain/errors.js';
import type { Handlers, HandlerEnv } from '../handler.js';
import { llmHealth } from './llm.js';
import { backupFolderOf, homeOf } from './startup.js';
import { modelUnavailableWarning, type HealthOutput } from '../system-contract.js';

type HealthProblem = z.infer<typeof HealthOutput>['problems'][number];

function settingsView(ctx: EngineContext) {
  const f = ctx.config.forgetting;
  return {
    forgetting: {
      enabled: f.enabled,
      archiveThreshold: f.thresholds.archive,
      trashThreshold: f.thresholds.trash,
      trashRetentionDays: f.trashRetentionDays,
    },
    knowledge: { maxFacts: ctx.config.semantic.capacity.maxItems, maxTokens: ctx.config.semantic.capacity.maxTokens },
    privacy: ctx.config.privacy,
    dataDir: homeOf(ctx),
  };
}

/**
 * Saves a change of the settings a person makes in the app (layered over those saved before) and makes
 * it the engine's configuration; the host's explicit options still lie over it.
 */
export async function saveEngineSettings(ctx: EngineContext, explicitConfig: Record<string, unknown>, change: Record<string, unknown>) {
  const saved = layerConfig((await ctx.store.read.settings.get(ENGINE_SETTINGS_KEY)) ?? {}, change);
  const parsed = EngineConfig.safeParse(layerConfig(saved, explicitConfig));
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new NemoriError('INVALID_INPUT', `settings: ${issue.path.join('.')}: ${issue.message}`);
  }
  await ctx.store.transaction((r) => r.settings.put(ENGINE_SETTINGS_KEY, saved));
  ctx.config = parsed.data;
}

export function systemHandlers({
  ctx,
  embeddingStatus,
  explicitConfig,
  retelling,
}: HandlerEnv): Handlers<'stats' | 'listSources' | 'health' | 'getEngineSettings' | 'setEngineSettings' | 'backup'> {
  const { store } = ctx;
  /**
   * The model whose vectors count: the loaded one, or the one found for this folder when the engine was
   * opened without loading it (`nemori stats` and `health` do not load the model), so every front end
   * reports the same store the same way.
   */
  const vectorModel = () => ctx.embedder?.modelId ?? (embeddingStatus.available ? embeddingStatus.modelId : null);
  const ownerStats = async (ownerId: string) => {
    const c = await store.read.episodes.counts(ownerId);
    const modelId = vectorModel();
    const embedded = modelId ? await store.read.vectors.count(ownerId, modelId) : 0;
    const sources = await store.read.episodes.sources(ownerId);
    return {
      ownerId,
      conversations: c.conversations,
      messages: c.messages,
      episodes: c.episodes,
      embedded,
      lastWrite: c.lastWrite?.toISOString() ?? null,
      sources,
    };
  };

  /** The integrity counts of core/store/integrity.ts and the keyword index's own check, worded. */
  const ownerProblems = async (ownerId: string, deep: boolean) => {
    const modelId = vectorModel();
    const c = await store.read.integrity.counts(ownerId, modelId);
    // The documents of missing episodes, and episodes without one, are among the integrity counts; the
    // index's own totals check covers theirs (the document count) and the field lengths besides.
    const bm25 = await store.read.bm25.verify(ownerId, { postings: deep, documents: false });
    const found: HealthProblem[] = [];
    const add = (check: HealthProblem['check'], count: number, message: string) => {
      if (count > 0) found.push({ ownerId, check, count, message: `${ownerId}: ${message}` });
    };
    const keywordWrong =
      c.episodesWithoutDoc + c.docsWithoutEpisode + bm25.dfMismatches + (bm25.postingMismatches ?? 0) + (bm25.statsMismatch ? 1 : 0);
    add(
      'keyword-index',
      keywordWrong,
      `the keyword index disagrees with the episodes (${c.episodesWithoutDoc} episodes missing, ${c.docsWithoutEpisode} entries of deleted episodes, ${bm25.dfMismatches} wrong term counts${bm25.postingMismatches === null ? '' : `, ${bm25.postingMismatches} postings out of place`}${bm25.statsMismatch ? ', wrong totals' : ''}): \`nemori rebuild\` rebuilds it`,
    );
    add(
      'vectors',
      c.episodesWithoutVector ?? 0,
      `${c.episodesWithoutVector} episodes have no vector of ${modelId}: \`nemori rebuild\` embeds them`,
    );
    add(
      'messages-without-episode',
      c.messagesWithoutEpisode,
      `${c.messagesWithoutEpisode} messages point at episodes that do not exist; the next open makes them pending again`,
    );
    add('episodes-without-messages', c.episodesWithoutMessages, `${c.episodesWithoutMessages} episodes have lost their messages`);
    return found;
  };

  return {
    async getEngineSettings() {
      return settingsView(ctx);
    },

    async setEngineSettings(i) {
      const f = i.forgetting ?? {};
      const k = i.knowledge ?? {};
      const change = {
        forgetting: {
          ...(f.enabled !== undefined && { enabled: f.enabled }),
          ...(f.trashRetentionDays !== undefined && { trashRetentionDays: f.trashRetentionDays }),
          thresholds: {
            ...(f.archiveThreshold !== undefined && { archive: f.archiveThreshold }),
            ...(f.trashThreshold !== undefined && { trash: f.trashThreshold }),
          },
        },
        semantic: {
          capacity: {
            ...(k.maxFacts !== undefined && { maxItems: k.maxFacts }),
            ...(k.maxTokens !== undefined && { maxTokens: k.maxTokens }),
          },
        },
        ...(i.privacy && { privacy: i.privacy }),
      };
      await saveEngineSettings(ctx, explicitConfig, change);
      // What the new rules catch that the old ones let through leaves what is stored too.
      if (i.privacy) retelling?.rulesChanged();
      return settingsView(ctx);
    },

    async backup(i) {
      const folder = i.folder ?? backupFolderOf(ctx);
      if (!folder) throw new NemoriError('INVALID_INPUT', 'this engine keeps nothing on disk: name a folder to write the backup into');
      const at = ctx.clock.now();
      fs.mkdirSync(folder, { recursive: true });
      const encrypted = i.passphrase !== undefined;
      const file = path.join(folder, `nemori-backup-${at.toISOString().replace(/[:.]/g, '-')}.tar.gz${encrypted ? '.enc' : ''}`);
      await store.backup(file, i.passphrase);
      return { file, bytes: fs.statSync(file).size, at: at.toISOString(), encrypted };
    },

    async stats(i) {
      const owners = i.ownerId ? [i.ownerId] : await store.read.episodes.owners();
      return { owners: await Promise.all(owners.map(ownerStats)) };
    },

    async listSources(i) {
      return { sources: await store.read.episodes.sources(i.ownerId) };
    },

    async health(i) {
      const warnings: string[] = [];
      const owners = await Promise.all((await store.read.episodes.owners()).map(ownerStats));
      const problems: HealthProblem[] = [];
      const checked = i.checks || i.deep;
      if (checked) for (const { ownerId } of owners) problems.push(...(await ownerProblems(ownerId, i.deep)));
      if (i.deep) {
        // A damaged B-tree is rebuilt from its table at once (REINDEX loses nothing); only one that stays damaged is a problem.
        const damaged = await store.checkIndexes();
        if (damaged.length > 0) {
          await store.reindex(damaged.map((d) => d.index));
          const still = new Set((await store.checkIndexes()).map((d) => d.index));
          for (const d of damaged) {
            if (still.has(d.index))
              problems.push({ ownerId: null, check: 'btree' as const, count: 1, message: `the index ${d.index} is damaged (${d.error})` });
            else warnings.push(`repaired: the index ${d.index} was damaged (${d.error}); rebuilt it from its table`);
          }
        }
      }
      if (!embeddingStatus.available) warnings.push(modelUnavailableWarning(embeddingStatus.reason));
      // An LLM that does not answer is a warning, not ill health: episodes are then built without it.
      const llm = await llmHealth(ctx);
      if (llm.configured && (!llm.reachable || llm.error)) {
        warnings.push(
          `LLM ${llm.model} at ${llm.baseUrl}: ${llm.error?.message ?? 'not reachable'}; new episodes are built without it and marked for \`nemori rebuild --llm\``,
        );
      }
      return {
        ok: problems.length === 0,
        home: store.dir,
        database: {
          status: 'ok' as const,
          schemaVersion: await store.schemaVersion(),
          openMs: store.openMs,
          sizeBytes: await store.sizeOnDisk(),
          walBytes: await store.walBytes(),
        },
        embedding: embeddingStatus,
        llm,
        owners,
        problems,
        checked,
        deep: i.deep,
        warnings,
      };
    },
  };
}
