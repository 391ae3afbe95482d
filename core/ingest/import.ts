import fs from 'node:fs/promises';
import path from 'node:path';
import type { z } from 'zod';
import type { EngineContext } from '../context/engine-context.js';
import type { IncomingConversation } from '../domain/conversation.js';
import { NemoriError } from '../domain/errors.js';
import { processConversation, processConversations, yieldToEventLoop, type BuildOptions } from '../episodes/process.js';
import type { DiscoveryRun } from '../facts/reports.js';
import type { DiscoveryJobs } from '../jobs/discovery-runner.js';
import type { Progress } from '../jobs/progress.js';
import type { ImportFormat } from './import-format.js';
import { DateOrder, type ImportFileReport, type ImportFilesInput, type ImportFilesOutput } from './import-report.js';
import { importProgress } from './import-progress.js';
import { redactConversation } from '../privacy/redact.js';
import { conversationProblem, messageProblem } from './message-checks.js';

/**
 * Importing export files, the whole use case: measure and validate every file, store each conversation's
 * raw messages, build its episodes, then run knowledge discovery over what was built.
 */

export interface IngestResult {
  conversationId: string;
  messagesAdded: number;
  episodesCreated: number;
  /** Secrets the privacy filter replaced in what was sent (counted again when the same messages come again). */
  redacted: number;
}

/**
 * One conversation in: its secrets are replaced (core/privacy) before anything sees it, the raw messages
 * are committed first (nothing is lost if building fails), then episodes are built from whatever is new.
 * Re-sending the same conversation adds nothing.
 */
export async function ingestConversation(
  ctx: EngineContext,
  ownerId: string,
  given: IncomingConversation,
  o: BuildOptions = {},
): Promise<IngestResult> {
  const stored = await storeConversation(ctx, ownerId, given, o);
  return { ...stored, episodesCreated: await processConversation(ctx, ownerId, stored.conversationId, o) };
}

/**
 * Several conversations in, each as `ingestConversation` takes one — its raw messages committed first —
 * then built together (`processConversations`): small ones share their transactions.
 */
export async function ingestConversations(
  ctx: EngineContext,
  ownerId: string,
  given: readonly IncomingConversation[],
): Promise<IngestResult[]> {
  const stored: Omit<IngestResult, 'episodesCreated'>[] = [];
  for (const c of given) stored.push(await storeConversation(ctx, ownerId, c));
  const created = await processConversations(
    ctx,
    ownerId,
    stored.map((s) => ({ conversationId: s.conversationId })),
  );
  return stored.map((s, i) => ({ ...s, episodesCreated: created[i]! }));
}

/** The first half of taking a conversation in: secrets replaced (core/privacy), raw messages committed in one transaction. */
async function storeConversation(
  ctx: EngineContext,
  ownerId: string,
  given: IncomingConversation,
  o: BuildOptions = {},
): Promise<Omit<IngestResult, 'episodesCreated'>> {
  const { value: c, redacted } = redactConversation(given, ctx.config.privacy);
  const now = ctx.clock.now();
  const { conversationId, messagesAdded } = await ctx.store.transaction(async (r) => {
    const { id } = await r.conversations.upsert(ownerId, c, now);
    return { conversationId: id, messagesAdded: await r.conversations.addMessages(ownerId, id, c) };
  });
  // All of them are in the store now, whether this call added them or an earlier one did.
  o.onProgress?.({ step: 'stored', messages: c.messages.length });
  return { conversationId, messagesAdded, redacted };
}

/** The person's own messages are role `user`; everyone else's keep what the export said, minus `user`. */
function withMe(c: IncomingConversation, me: string | null): IncomingConversation {
  if (!me) return c;
  return { ...c, messages: c.messages.map((m) => ({ ...m, role: m.speaker === me ? 'user' : m.role === 'user' ? 'other' : m.role })) };
}

type ImportFiles = z.infer<typeof ImportFilesInput>;

/**
 * Folders become the exports found in them (unless a format is forced: then the folder is read as
 * that format). A folder that cannot be listed is that path's error.
 */
async function expandFolders(i: ImportFiles): Promise<Array<{ file: string; error?: unknown }>> {
  const out: Array<{ file: string; error?: unknown }> = [];
  for (const file of i.paths) {
    let folder = false;
    try {
      folder = !i.format && (await fs.stat(file)).isDirectory();
    } catch {
      // Unreadable: detection reports it for this path.
    }
    if (!folder) out.push({ file });
    else
      await import('./folder-exports.js')
        .then(({ exportsInFolder }) => exportsInFolder(file))
        .then(
          (files) => out.push(...files.map((f) => ({ file: f }))),
          (error: unknown) => out.push({ file, error }),
        );
  }
  return out;
}

function emptyReport(file: string): ImportFileReport {
  return {
    file,
    format: null,
    conversations: 0,
    messages: 0,
    skipped: 0,
    messagesAdded: 0,
    episodesCreated: 0,
    redacted: 0,
    participants: [],
    me: null,
    dateRange: null,
    dateOrder: null,
    warnings: [],
    error: null,
  };
}

/**
 * Pass 1 for one file: validates it whole and measures it (conversations, messages, participants,
 * dates), storing nothing. The format comes back only when the file can be stored.
 */
async function measure(
  file: string,
  i: ImportFiles,
  ctx: EngineContext,
): Promise<{ report: ImportFileReport; format: ImportFormat | null }> {
  const report = emptyReport(file);
  try {
    // The readers of every format (and their parsers) load with the first file: a start that imports nothing does not pay for them.
    const { detectFormat } = await import('./detect-format.js');
    const format = await detectFormat(file, i.format);
    report.format = format.id;
    report.me = i.me ?? (await ctx.store.read.importPreferences.me(i.ownerId, format.id));
    const participants = new Set<string>();
    let from = Infinity;
    let to = -Infinity;
    for await (const c of format.read(file, { warn: (m) => report.warnings.push(m), timeZone: i.timeZone, dateOrder: i.dateOrder })) {
      if (report.conversations % 50 === 0) await yieldToEventLoop();
      refuseUnstorable(file, c, report.conversations + (c.metadata.continued ? 0 : 1));
      if (!c.metadata.continued) report.conversations++;
      report.messages += c.messages.length;
      report.skipped += typeof c.metadata.skipped === 'number' ? c.metadata.skipped : 0;
      for (const p of c.participants) participants.add(p);
      report.dateOrder ??= unsettledDateOrder(c);
      for (const m of c.messages) {
        from = Math.min(from, m.sentAt.getTime());
        to = Math.max(to, m.sentAt.getTime());
      }
    }
    report.participants = [...participants];
    if (report.messages > 0) report.dateRange = { from: new Date(from).toISOString(), to: new Date(to).toISOString() };
    if (report.me && !participants.has(report.me)) {
      report.warnings.push(
        `"${report.me}" does not take part in ${path.basename(file)} (participants: ${report.participants.slice(0, 8).join(', ')})`,
      );
    }
    return { report, format };
  } catch (e) {
    report.error = fileError(file, e);
    return { report, format: null };
  }
}

/** The day/month order a reader had to be told or guess (WhatsApp says so in the conversation's metadata). */
function unsettledDateOrder(c: IncomingConversation): ImportFileReport['dateOrder'] {
  const order = DateOrder.safeParse(c.metadata.dateOrder);
  const from = c.metadata.dateOrderFrom;
  if (!order.success || (from !== 'locale' && from !== 'option')) return null;
  return { order: order.data, by: from === 'locale' ? 'guess' : 'choice' };
}

/**
 * The last guard before the store: what a reader let through that the store cannot hold (a NUL, an
 * impossible time) refuses the file, naming the conversation and the message, instead of aborting the
 * import half-way with the conversations before it stored.
 */
function refuseUnstorable(file: string, c: IncomingConversation, n: number): void {
  const where = `${file}: conversation ${n} ("${c.title ?? c.externalId}")`;
  const problem = conversationProblem(c);
  if (problem) throw new NemoriError('IMPORT_PARSE', `${where}: ${problem}`, { file, conversation: n });
  for (const [k, m] of c.messages.entries()) {
    const p = messageProblem(m);
    if (p) {
      const id = m.externalId ? ` (id ${m.externalId})` : '';
      throw new NemoriError('IMPORT_PARSE', `${where}, message ${k + 1}${id}: ${p}`, { file, conversation: n, message: k + 1 });
    }
  }
}

/** One file's failure, whatever threw it: a reader's bug must cost that file, never the files after it. */
function fileError(file: string, e: unknown): { code: string; message: string } {
  if (e instanceof NemoriError) return { code: e.code, message: e.message };
  return { code: 'INTERNAL', message: `${file}: ${e instanceof Error ? e.message : String(e)}` };
}

function summarise(files: ImportFileReport[], dryRun: boolean, discovery: DiscoveryRun | null, cancelled: boolean): ImportFilesOutput {
  const formats = [...new Set(files.flatMap((f) => (f.format ? [f.format] : [])))];
  return {
    format: formats.length === 0 ? null : formats.length === 1 ? formats[0]! : 'mixed',
    conversations: files.reduce((s, f) => s + f.conversations, 0),
    messages: files.reduce((s, f) => s + f.messages, 0),
    participants: [...new Set(files.flatMap((f) => f.participants))],
    skipped: files.reduce((s, f) => s + f.skipped, 0),
    redacted: files.reduce((s, f) => s + f.redacted, 0),
    warnings: files.flatMap((f) => f.warnings.map((w) => `${path.basename(f.file)}: ${w}`)),
    errors: files.flatMap((f) => (f.error ? [{ file: f.file, ...f.error }] : [])),
    dryRun,
    files,
    discovery,
    cancelled,
  };
}

export interface ImportOptions {
  onProgress?: (p: Progress) => void;
  /**
   * A cancel stops once the conversation being stored is in, and its episodes between two windows
   * (core/episodes/process.ts): what is not built yet stays pending, built by the next import or `rebuild`.
   */
  signal?: AbortSignal | undefined;
}

export async function importFiles(
  ctx: EngineContext,
  discovery: DiscoveryJobs,
  i: ImportFiles,
  o: ImportOptions = {},
): Promise<ImportFilesOutput> {
  // A cancel stops after the conversation being stored: its messages are committed whole, and
  // importing the file again adds only what is missing and builds what is pending.
  const cancelled = () => o.signal?.aborted === true;
  // Pass 1 validates and measures every file (the preview, and the totals the progress counts
  // towards); pass 2 stores them. Bad input stores nothing, and neither pass holds more than one
  // conversation (or one part of a long one) in memory.
  const measured: { report: ImportFileReport; format: ImportFormat | null }[] = [];
  for (const { file, error } of await expandFolders(i)) {
    if (cancelled()) break;
    measured.push(
      error === undefined ? await measure(file, i, ctx) : { report: { ...emptyReport(file), error: fileError(file, error) }, format: null },
    );
  }
  const files = measured.map((m) => m.report);
  if (i.dryRun) return summarise(files, true, null, cancelled());

  const progress = o.onProgress
    ? importProgress(o.onProgress, {
        messages: measured.reduce((n, m) => n + (m.format ? m.report.messages : 0), 0),
        embedder: ctx.embedder !== null,
        discovery: ctx.llm !== null,
      })
    : null;
  for (const [n, { report, format }] of measured.entries()) {
    if (cancelled()) break;
    if (!format) continue;
    const file = { name: path.basename(report.file), index: n + 1, count: measured.length };
    try {
      const me = i.me;
      if (me) await ctx.store.transaction((r) => r.importPreferences.rememberMe(i.ownerId, format.id, me, ctx.clock.now()));
      // Conversations are stored one by one and built a window of messages at a time: small chats share
      // their transactions (processConversations).
      let stored: { conversationId: string; options: BuildOptions; processed?: () => void }[] = [];
      let held = 0;
      const build = async () => {
        const created = await processConversations(ctx, i.ownerId, stored, o.signal);
        stored.forEach((s, k) => {
          report.episodesCreated += created[k]!;
          s.processed?.();
        });
        stored = [];
        held = 0;
      };
      for await (const c of format.read(report.file, { warn: () => {}, timeZone: i.timeZone, dateOrder: i.dateOrder })) {
        if (cancelled()) break;
        const conversation = progress?.conversation(c.messages.length, file);
        const options = { ...conversation, signal: o.signal };
        const r = await storeConversation(ctx, i.ownerId, withMe(c, report.me), options);
        report.messagesAdded += r.messagesAdded;
        report.redacted += r.redacted;
        stored.push({ conversationId: r.conversationId, options, processed: conversation?.processed });
        held += c.messages.length;
        if (held >= ctx.config.segment.buildWindow) await build();
        // PGlite runs on this thread: yield between conversations so other calls (the UI asking for
        // the journal while a year of chats imports) are answered mid-import, not after it.
        await yieldToEventLoop();
      }
      await build();
    } catch (e) {
      report.error = fileError(report.file, e);
    }
  }
  // The messages an import built were stored pending and then marked built, which leaves their old
  // versions and index entries behind; the store vacuums after a share of its whole index was written,
  // so an import's last stretch stays unvacuumed until much later. Every loadContext's look for pending
  // messages walked those entries (1,000–3,300 pages at 100k episodes, 217 ms the first time, 1–5 ms
  // after): vacuumed, 3 pages.
  if (!cancelled() && files.some((f) => f.messagesAdded > 0)) await ctx.store.maintain(true);
  // Knowledge discovery is the import's last phase when an LLM is configured (progress: `discovery`).
  const knowledge =
    !cancelled() && ctx.llm && files.some((f) => f.episodesCreated > 0)
      ? await discovery.run(i.ownerId, { signal: o.signal, ...(progress ? { onProgress: progress.discovery } : {}) })
      : null;
  return summarise(files, false, knowledge, cancelled());
}
