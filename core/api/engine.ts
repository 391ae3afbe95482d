import path from 'node:path';
import { NemoriError } from '../domain/errors.js';
import { IncomingConversation, parseIsoWithOffset } from '../domain/conversation.js';
import { EngineConfig, systemClock, type Clock, type EngineContext } from '../context.js';
import type { Embedder } from '../embed/embedder.js';
import { createEpisode, deleteEpisode, rebuildIndexes, recallEpisode, updateEpisode } from '../episodes/lifecycle.js';
import { ingestConversation, processPending } from '../episodes/process.js';
import { detectFormat } from '../ingest/formats.js';
import { searchEpisodes } from '../retrieval/search.js';
import { Store } from '../store/store.js';
import { operations, type OperationName, type OpInput, type OpOutput } from './contract.js';
import { episodeView, messageView } from './views.js';
import { explainHit } from './explain.js';
import { z } from 'zod';

export interface ProgressEvent {
  operation: OperationName;
  phase: string;
  done: number;
  total: number;
  detail?: string;
}
export interface CallOptions {
  onProgress?: (e: ProgressEvent) => void;
}

export interface EmbeddingStatus {
  available: boolean;
  modelId: string;
  source: string | null;
  reason: string | null;
}

export interface OpenEngineOptions {
  /** Data folder; null → an in-memory store that vanishes on close (tests, previews). */
  home: string | null;
  embedder: Embedder | null;
  /** What `health` reports about the embedding model (the loader knows why a model is missing). */
  embeddingStatus?: EmbeddingStatus;
  clock?: Clock;
  config?: z.input<typeof EngineConfig>;
  warn?: (message: string) => void;
}

type Handlers = { [K in OperationName]: (input: z.infer<(typeof operations)[K]['input']>, o: CallOptions) => Promise<OpOutput<K>> };

function encodeCursor(start: Date, id: string): string {
  return Buffer.from(`${start.toISOString()}|${id}`).toString('base64url');
}
function decodeCursor(cursor: string): { start: Date; id: string } {
  const [iso, id] = Buffer.from(cursor, 'base64url').toString().split('|');
  const start = new Date(iso ?? '');
  if (!id || Number.isNaN(start.getTime())) throw new NemoriError('INVALID_INPUT', 'the page cursor is not valid; start from the first page');
  return { start, id };
}

function handlers(ctx: EngineContext, o: OpenEngineOptions): Handlers {
  const { store } = ctx;
  const ownerStats = async (ownerId: string) => {
    const c = await store.read.episodes.counts(ownerId);
    const embedded = ctx.embedder ? await store.read.vectors.count(ownerId, ctx.embedder.modelId) : 0;
    return { ownerId, conversations: c.conversations, messages: c.messages, episodes: c.episodes, embedded, lastWrite: c.lastWrite?.toISOString() ?? null };
  };

  return {
    async search(i) {
      const started = performance.now();
      const filters = { since: i.since, until: i.until, episodeTypes: i.episodeTypes, minImportance: i.minImportance };
      const outcome = await searchEpisodes(
        { store, embedder: ctx.embedder, config: ctx.config.retrieval },
        { ownerId: i.ownerId, text: i.query, mode: i.mode, limit: i.limit, filters },
      );
      const ids = outcome.hits.map((h) => h.episodeId);
      const [episodes, messages] = await Promise.all([
        store.read.episodes.getMany(i.ownerId, ids),
        store.read.conversations.messagesOfEpisodes(i.ownerId, ids),
      ]);
      if (i.markAccessed) await store.read.episodes.recordAccess(i.ownerId, ids, ctx.clock.now());
      const byEpisode = new Map<string, typeof messages>();
      for (const m of messages) if (m.episodeId) byEpisode.set(m.episodeId, [...(byEpisode.get(m.episodeId) ?? []), m]);
      const episodeById = new Map(episodes.map((e) => [e.id, e]));
      const results = outcome.hits.flatMap((h) => {
        const e = episodeById.get(h.episodeId);
        if (!e) return [];
        return [{
          kind: 'episode' as const,
          id: e.id,
          title: e.title,
          summary: e.summary,
          text: e.content,
          start: e.temporal.start.toISOString(),
          end: e.temporal.end.toISOString(),
          score: h.score,
          scores: { bm25: h.bm25, vector: h.similarity },
          reason: { matchedBy: h.matchedBy, terms: h.matchedTerms, explanation: explainHit(h) },
          sources: (byEpisode.get(e.id) ?? []).map((m) => ({ id: m.id, externalId: m.externalId, speaker: m.speaker, sentAt: m.sentAt.toISOString() })),
        }];
      });
      for (const w of outcome.warnings) ctx.warn(w);
      return { query: i.query, mode: outcome.modeUsed, results, warnings: outcome.warnings, tookMs: performance.now() - started };
    },

    async ingestConversation(i) {
      const c = IncomingConversation.parse({
        source: i.source,
        externalId: i.conversation.id,
        title: i.conversation.title,
        participants: i.conversation.participants ?? [...new Set(i.conversation.messages.map((m) => m.speaker))],
        messages: i.conversation.messages.map((m) => {
          const { at, utcOffsetMin } = parseIsoWithOffset(m.timestamp);
          return { externalId: m.id, speaker: m.speaker, role: m.role ?? 'other', text: m.text, sentAt: at, utcOffsetMin };
        }),
      });
      return ingestConversation(ctx, i.ownerId, c);
    },

    async importFiles(i, opts) {
      const files = [];
      for (const [n, file] of i.paths.entries()) {
        const report = { file, format: null as string | null, conversations: 0, messages: 0, messagesAdded: 0, episodesCreated: 0, participants: [] as string[], warnings: [] as string[], error: null as { code: string; message: string } | null };
        try {
          const format = await detectFormat(file, i.format);
          report.format = format.id;
          const warnings: string[] = [];
          const readCtx = { warn: (m: string) => warnings.push(m) };
          // Pass 1 validates the whole file and counts it; pass 2 stores it. Bad input stores nothing,
          // and neither pass holds more than one conversation in memory.
          const participants = new Set<string>();
          for await (const c of format.read(file, readCtx)) {
            report.conversations++;
            report.messages += c.messages.length;
            for (const p of c.participants) participants.add(p);
          }
          report.participants = [...participants];
          let done = 0;
          for await (const c of format.read(file, { warn: () => {} })) {
            const r = await ingestConversation(ctx, i.ownerId, c);
            report.messagesAdded += r.messagesAdded;
            report.episodesCreated += r.episodesCreated;
            done += c.messages.length;
            opts.onProgress?.({ operation: 'importFiles', phase: 'import', done, total: report.messages, detail: `${path.basename(file)} (${n + 1}/${i.paths.length})` });
          }
          report.warnings = warnings;
        } catch (e) {
          if (!(e instanceof NemoriError)) throw e;
          report.error = { code: e.code, message: e.message };
        }
        files.push(report);
      }
      return { files };
    },

    async getEpisode(i) {
      const episode = await recallEpisode(ctx, i.ownerId, i.id);
      const messages = await store.read.conversations.messagesOfEpisodes(i.ownerId, [i.id]);
      return { episode: episodeView(episode), messages: messages.map(messageView) };
    },

    async listEpisodes(i) {
      const page = await store.read.episodes.list(i.ownerId, {
        limit: i.limit + 1,
        since: i.since,
        until: i.until,
        episodeTypes: i.episodeTypes,
        minImportance: i.minImportance,
        before: i.cursor ? decodeCursor(i.cursor) : undefined,
      });
      const more = page.length > i.limit;
      const episodes = page.slice(0, i.limit);
      const last = episodes.at(-1);
      return { episodes: episodes.map(episodeView), nextCursor: more && last ? encodeCursor(last.temporal.start, last.id) : null };
    },

    async createEpisode(i) {
      const { start, end, utcOffsetMin, ...rest } = i.episode;
      const e = await createEpisode(ctx, i.ownerId, {
        ...rest,
        temporal: { start, end: end ?? start, utcOffsetMin },
        builder: 'manual',
        processingStatus: 'ready',
        processingVersion: 'manual-1',
      });
      return episodeView(e);
    },

    async updateEpisode(i) {
      return episodeView(await updateEpisode(ctx, i.ownerId, i.id, i.patch));
    },

    async deleteEpisode(i) {
      await deleteEpisode(ctx, i.ownerId, i.id);
      return { deleted: true as const };
    },

    async rebuildIndexes(i, opts) {
      await processPending(ctx, i.ownerId);
      return rebuildIndexes(ctx, i.ownerId, {
        reembed: i.reembed,
        onProgress: (done, total) => opts.onProgress?.({ operation: 'rebuildIndexes', phase: 'index', done, total }),
      });
    },

    async stats(i) {
      const owners = i.ownerId ? [i.ownerId] : await store.read.episodes.owners();
      return { owners: await Promise.all(owners.map(ownerStats)) };
    },

    async health() {
      const warnings: string[] = [];
      const owners = await Promise.all((await store.read.episodes.owners()).map(ownerStats));
      const embedding = o.embeddingStatus ?? {
        available: ctx.embedder !== null,
        modelId: ctx.embedder?.modelId ?? 'none',
        source: null,
        reason: ctx.embedder ? null : 'no embedding model configured',
      };
      if (!embedding.available) warnings.push(`embedding model unavailable (${embedding.reason ?? 'unknown reason'}): search is keyword-only`);
      return {
        ok: true,
        home: store.dir,
        database: { status: 'ok' as const, schemaVersion: await store.schemaVersion(), openMs: store.openMs, sizeBytes: await store.sizeOnDisk() },
        embedding,
        owners,
        warnings,
      };
    },
  };
}

/** The engine every front end talks to: one validated `call` per contract operation. */
export interface Engine {
  call<K extends OperationName>(name: K, input: NoInfer<OpInput<K>>, o?: CallOptions): Promise<OpOutput<K>>;
  readonly context: EngineContext;
  close(): Promise<void>;
}

export async function openEngine(o: OpenEngineOptions): Promise<Engine> {
  const store = await Store.open({ dir: o.home ? path.join(o.home, 'db') : undefined });
  const ctx: EngineContext = {
    store,
    embedder: o.embedder,
    clock: o.clock ?? systemClock,
    config: EngineConfig.parse(o.config ?? {}),
    warn: o.warn ?? (() => {}),
  };
  const h = handlers(ctx, o);
  return {
    context: ctx,
    async call(name, input, opts = {}) {
      const parsed = operations[name].input.safeParse(input);
      if (!parsed.success) {
        const issue = parsed.error.issues[0]!;
        throw new NemoriError('INVALID_INPUT', `${name}: ${issue.path.join('.') || 'input'}: ${issue.message}`);
      }
      const handler = h[name] as (i: unknown, o: CallOptions) => Promise<unknown>;
      return operations[name].output.parse(await handler(parsed.data, opts)) as OpOutput<typeof name>;
    },
    async close() {
      await o.embedder?.dispose();
      await store.close();
    },
  };
}
