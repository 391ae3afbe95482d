import os from 'node:os';
import { Command, Option } from 'commander';
import cliProgress from 'cli-progress';
import { DEFAULT_OWNER, type OperationName, type OpInput, type OpOutput } from '../api/contract.js';
import type { CallOptions, Engine, ProgressEvent } from '../engine/open-engine.js';
import { openAppEngine } from '../engine/app-engine.js';
import { connectOrOpenEngine } from '../engine/connect.js';
import { engineVersion } from '../engine/holder.js';
import { openDefaultEngine, type EmbeddingNeed } from '../engine/open-default.js';
import { isNemoriError, NemoriError } from '../domain/errors.js';
import { WireCallError } from '../api/dispatch.js';
import { resolveStartup } from '../engine/startup.js';
import { addCompanionCommands } from './companion.js';
import { addDataCommands } from './data.js';
import { addExportCommand, importExport, nemoriExports } from './export.js';
import { addForgettingCommands } from './forgetting.js';
import { addFactFilterOptions, addKnowledgeCommands, factFilters } from './knowledge.js';
import { addLlmCommands, addLlmOptions, llmOverrides, renderLlmHealth, renderRebuildEpisodes, type LlmFlags } from './llm.js';
import { renderEpisode, renderEpisodeList, renderHealth, renderImport, renderSearch, renderStats } from './output.js';
import { quantity } from '../text/describe.js';
import { sealedBackupsWarning } from '../forgetting/backup-secrets.js';

interface GlobalOptions extends LlmFlags {
  home?: string;
  json?: boolean;
  progress: 'auto' | 'json' | 'none';
}

/** What a bar says beside its numbers: the phase, and what the event's facts add to it. */
function progressLabel(e: ProgressEvent): string {
  const file = e.facts?.file;
  if (file) return `${e.phase}: ${file.name} (${file.index}/${file.count})`;
  if (e.facts?.keywordOnly) return `${e.phase}: keyword search only (no embedding model)`;
  return e.phase;
}

type ProgressReporter = { onProgress: (e: ProgressEvent) => void; stop: () => void };

/**
 * How long work shows its progress (`--progress`): `auto`, bars on a terminal without --json; `json`, every
 * event as one line of JSON on stderr (for a script or a companion that runs the command, under --json too:
 * stdout keeps the result alone); `none`.
 */
function progressReporter(g: GlobalOptions): ProgressReporter {
  if (g.progress === 'json') return { onProgress: (e) => process.stderr.write(`${JSON.stringify(e)}\n`), stop: () => {} };
  return progressBars(g.progress === 'auto' && !g.json && Boolean(process.stderr.isTTY));
}

/**
 * Bars only for work that runs longer than a second: a bar per phase (an import's messages, episodes,
 * embeddings and discovery advance side by side).
 */
function progressBars(enabled: boolean): ProgressReporter {
  const started = Date.now();
  let bars: cliProgress.MultiBar | null = null;
  // Until the bars show, the latest event of each phase, in the order the phases began.
  const latest = new Map<string, ProgressEvent>();
  const shown = new Map<string, cliProgress.SingleBar>();
  const show = (multi: cliProgress.MultiBar, e: ProgressEvent) => {
    const bar = shown.get(e.phase);
    if (!bar) shown.set(e.phase, multi.create(e.total, e.done, { label: progressLabel(e) }));
    else {
      bar.setTotal(e.total);
      bar.update(e.done, { label: progressLabel(e) });
    }
  };
  return {
    onProgress(e) {
      if (!enabled) return;
      latest.set(e.phase, e);
      if (!bars && Date.now() - started > 1000) {
        bars = new cliProgress.MultiBar(
          { format: '{bar} {percentage}% | {value}/{total} | {label}', stream: process.stderr, hideCursor: true },
          cliProgress.Presets.shades_classic,
        );
        for (const earlier of latest.values()) show(bars, earlier);
      } else if (bars) show(bars, e);
    },
    stop() {
      bars?.stop();
      bars = null;
      latest.clear();
      shown.clear();
    },
  };
}

/**
 * How a command opens the engine: the embedding model loaded, probed or skipped; or as the app's engine,
 * which can reopen the store (`nemori data`), with the model loaded or, for a command that only shows
 * or copies the store, probed.
 */
type Opening = EmbeddingNeed | 'app' | 'app-probe';

/** Engines still closing once their command has printed: a holder first finishes other processes' calls. */
const closing: Promise<void>[] = [];

/**
 * Runs `fn` on the data folder's engine: the one another Nemori process holds (the app, `nemori web`, another
 * command), reached over loopback; or, when none does, one this command opens — and holds, answering other
 * processes until it is done.
 */
async function withEngine<T>(
  g: GlobalOptions,
  opening: Opening,
  fn: (engine: Pick<Engine, 'call'>, stop: AbortSignal) => Promise<T>,
  o: { stoppable?: boolean } = {},
): Promise<T> {
  const startup = resolveStartup(g.home);
  const warn = (m: string) => {
    if (!g.json) process.stderr.write(`warning: ${m}\n`);
  };
  // Close the database on every exit path, including Ctrl-C mid-import (PGlite does not fsync on its own);
  // a client's calls running at the holder are cancelled. A stoppable command (an import) is stopped at
  // its next committed step by the first Ctrl-C or SIGTERM instead, and still prints what it did; it
  // exits as a stopped process does (128 + the signal's number). A second signal quits at once.
  const stop = new AbortController();
  let opened: { close(): Promise<void> } | null = null;
  const onSignal = (signal: NodeJS.Signals) => {
    const code = 128 + (os.constants.signals[signal] ?? 2);
    if (o.stoppable && !stop.signal.aborted) {
      stop.abort();
      process.exitCode = code;
      if (!g.json) process.stderr.write('stopping once what is under way is stored (again to quit at once)…\n');
      return;
    }
    void (opened?.close() ?? Promise.resolve()).finally(() => process.exit(code));
  };
  const listen = (on: boolean) => {
    for (const signal of ['SIGINT', 'SIGTERM'] as const) {
      if (on) process.on(signal, onSignal);
      else process.off(signal, onSignal);
    }
  };
  listen(true);
  const { loopback } = await import('../http/holder-transport.js');
  let engine: Awaited<ReturnType<typeof connectOrOpenEngine>>;
  try {
    engine = await connectOrOpenEngine({
      home: startup.home,
      transport: loopback,
      open: ({ lock, moved }) =>
        opening === 'app' || opening === 'app-probe'
          ? openAppEngine({
              startup,
              warn,
              background: false,
              lock,
              onHomeChanged: moved,
              embeddings: opening === 'app' ? 'auto' : 'probe',
            })
          : openDefaultEngine({
              home: startup.home,
              embeddingModel: startup.embeddingModel,
              embeddings: opening,
              warn,
              llm: llmOverrides(g),
              lock,
            }),
      onClient: ({ pid, home }) => {
        // stderr, whatever the output mode: --json keeps stdout for the result alone.
        process.stderr.write(`using the Nemori app that holds ${home} (pid ${pid})\n`);
        if (g.llmModel || g.llmBaseUrl || g.llmApiKey || g.llm === false)
          warn('the --llm options do not apply: that Nemori uses its own LLM settings');
      },
    });
  } catch (e) {
    listen(false);
    throw e;
  }
  opened = engine;
  try {
    await engine.ready;
    return await fn(engine, stop.signal);
  } finally {
    // After the command's output (main waits for it): as the holder, other processes' calls finish first
    // (Ctrl-C meanwhile cuts them off).
    closing.push(
      (async () => {
        await Promise.resolve();
        const others = engine.othersInFlight();
        if (others > 0) process.stderr.write(`waiting for ${others} call${others === 1 ? '' : 's'} of other Nemori processes to finish…\n`);
        await engine.close({ drain: true });
      })().finally(() => listen(false)),
    );
  }
}

function print<T>(g: GlobalOptions, out: T, human: (o: T) => string): void {
  process.stdout.write(g.json ? `${JSON.stringify(out, null, 2)}\n` : `${human(out)}\n`);
}

async function run<K extends OperationName>(
  g: GlobalOptions,
  embeddings: Opening,
  op: K,
  input: OpInput<K>,
  human: (o: OpOutput<K>) => string,
  opts: CallOptions = {},
): Promise<OpOutput<K>> {
  const out = await withEngine(g, embeddings, (e) => e.call(op, input, opts));
  print(g, out, human);
  return out;
}

/** Number flags. A bad one is an input error like any other: exit 1, and `{"error"}` under --json. */
const int = (v: string) => {
  if (!/^\s*[+-]?\d+\s*$/.test(v)) throw new NemoriError('INVALID_INPUT', `not a whole number: ${v}`);
  return Number.parseInt(v, 10);
};
const num = (v: string) => {
  const n = Number(v);
  if (v.trim() === '' || !Number.isFinite(n)) throw new NemoriError('INVALID_INPUT', `not a number: ${v}`);
  return n;
};

export function buildCli(): Command {
  const program = new Command('nemori')
    .description('Nemori: your conversations as episodic memory, searchable offline.')
    .addOption(new Option('--home <dir>', 'data folder (default: $NEMORI_HOME or the OS app-data folder)'))
    .version(`${engineVersion().app} (store schema ${engineVersion().schema})`, '-v, --version', 'print the version')
    .option('--json', 'print machine-readable JSON (documented in README)')
    .addOption(
      new Option('--progress <how>', 'progress of long work: bars on a terminal (auto), one JSON line per step on stderr (json), or none')
        .choices(['auto', 'json', 'none'])
        .default('auto'),
    )
    .showHelpAfterError();
  addLlmOptions(program);
  const g = () => program.opts<GlobalOptions>();
  const owner = () => new Option('--owner <id>', 'whose memory').default(process.env.NEMORI_OWNER ?? DEFAULT_OWNER);

  program
    .command('import')
    .description('import chat exports and conversation files (formats: see README)')
    .argument('<files...>')
    .addOption(owner())
    .option('--format <id>', 'skip detection and read every file as this format')
    .option('--me <name>', 'which participant is you (remembered per format)')
    .option('--dry-run', 'show what would be imported (format, counts, participants, dates) and store nothing')
    .option('--tz <zone>', 'time zone of the phone or PC that made the export (IANA name, e.g. Asia/Shanghai); default: this machine')
    .addOption(
      new Option(
        '--date-order <order>',
        'day or month first in numeric dates (WhatsApp) when the file does not settle it; default: this machine',
      ).choices(['dmy', 'mdy']),
    )
    .option('--passphrase-stdin', "an encrypted Nemori export's passphrase from the first line of standard input")
    .action(
      async (
        given: string[],
        o: {
          owner: string;
          format?: string;
          me?: string;
          dryRun?: boolean;
          tz?: string;
          dateOrder?: 'dmy' | 'mdy';
          passphraseStdin?: boolean;
        },
      ) => {
        // A Nemori export (`nemori export`) is read back whole into an empty memory; everything else is a chat export.
        const exports = o.dryRun ? [] : await nemoriExports(given);
        for (const file of exports) await importExport((op, input, human) => run(g(), 'off', op, input, human), file, o.owner, o);
        const files = given.filter((f) => !exports.includes(f));
        if (files.length === 0) return;
        const progress = progressReporter(g());
        const out = await withEngine(
          g(),
          o.dryRun ? 'off' : 'auto',
          (e, stop) =>
            e.call(
              'importFiles',
              {
                ownerId: o.owner,
                paths: files,
                format: o.format,
                me: o.me,
                dryRun: Boolean(o.dryRun),
                timeZone: o.tz,
                dateOrder: o.dateOrder,
              },
              { onProgress: progress.onProgress, signal: stop },
            ),
          { stoppable: true },
        ).finally(progress.stop);
        print(g(), out, renderImport);
        // A stopped import keeps its signal's exit status.
        if (out.errors.length > 0) process.exitCode ||= 1;
      },
    );

  type SearchFlags = Parameters<typeof factFilters>[0] & {
    owner: string;
    mode: 'hybrid' | 'bm25' | 'vector';
    kind: 'all' | 'episodic' | 'semantic';
    limit: number;
    since?: string;
    until?: string;
    minImportance?: number;
    from?: string[];
  };
  addFactFilterOptions(
    program
      .command('search')
      .description('search memories (hybrid keyword + meaning by default), episodes and facts in one ranking')
      .argument('<query...>')
      .addOption(owner())
      .addOption(new Option('--mode <mode>', 'hybrid, bm25 or vector').choices(['hybrid', 'bm25', 'vector']).default('hybrid'))
      .addOption(new Option('--kind <kind>', 'episodic, semantic (facts) or all').choices(['all', 'episodic', 'semantic']).default('all'))
      .option('--limit <n>', 'how many results', int, 10)
      .option('--since <date>', 'only memories from this date on (YYYY-MM-DD or ISO 8601)')
      .option('--until <date>', 'only memories before this date')
      .option('--min-importance <x>', 'only memories at least this important (0–1)', num)
      .option('--from <source...>', 'only episodes of conversations from these sources (whatsapp, telegram, api, …; see `nemori stats`)'),
    num,
  ).action(async (words: string[], o: SearchFlags) => {
    await run(
      g(),
      o.mode === 'bm25' ? 'off' : 'auto',
      'search',
      {
        ownerId: o.owner,
        query: words.join(' '),
        mode: o.mode,
        kind: o.kind,
        limit: o.limit,
        since: o.since,
        until: o.until,
        minImportance: o.minImportance,
        importSources: o.from,
        ...factFilters(o),
      },
      renderSearch,
    );
  });

  const episodes = program.command('episodes').description('browse episodes');
  episodes
    .command('list')
    .description('newest first')
    .addOption(owner())
    .option('--limit <n>', 'page size', int, 20)
    .option('--cursor <cursor>', 'next page, from the previous output')
    .option('--since <date>')
    .option('--until <date>')
    .option('--from <source...>', 'only conversations from these sources')
    .action(async (o: { owner: string; limit: number; cursor?: string; since?: string; until?: string; from?: string[] }) => {
      await run(
        g(),
        'off',
        'listEpisodes',
        { ownerId: o.owner, limit: o.limit, cursor: o.cursor, since: o.since, until: o.until, importSources: o.from },
        renderEpisodeList,
      );
    });
  episodes
    .command('show')
    .description('one episode with its source messages (counts as recalling it)')
    .argument('<id>')
    .addOption(owner())
    .action(async (id: string, o: { owner: string }) => {
      await run(g(), 'off', 'getEpisode', { ownerId: o.owner, id }, renderEpisode);
    });

  program
    .command('rebuild')
    .description(
      'tell again the episodes older rules told, then rebuild the search indexes (and embed what is missing); with --llm, rebuild episodes with the LLM',
    )
    .addOption(owner())
    .option('--reembed', 'recompute every vector, e.g. after changing the model')
    .option('--llm', 'upgrade the episodes built without the LLM while it failed (marked needs_rebuild), in place')
    .option('--all-heuristic', 'with --llm: also upgrade episodes built while no LLM was configured')
    .action(async (o: { owner: string; reembed?: boolean; llm?: boolean; allHeuristic?: boolean }) => {
      const progress = progressReporter(g());
      if (o.llm) {
        const out = await withEngine(g(), 'auto', (e) =>
          e.call(
            'rebuildEpisodes',
            { ownerId: o.owner, scope: o.allHeuristic ? 'heuristic' : 'needs_rebuild' },
            { onProgress: progress.onProgress },
          ),
        ).finally(progress.stop);
        print(g(), out, renderRebuildEpisodes);
        if (out.failed > 0) process.exitCode = 1;
        return;
      }
      const out = await withEngine(g(), 'auto', (e) =>
        e.call('rebuildIndexes', { ownerId: o.owner, reembed: Boolean(o.reembed) }, { onProgress: progress.onProgress }),
      ).finally(progress.stop);
      print(
        g(),
        out,
        (x) =>
          `${x.secrets > 0 ? `Replaced ${quantity(x.secrets, 'copy')} of secrets that older privacy rules let through. ` : ''}` +
          `${x.backups.filtered > 0 ? `Filtered ${quantity(x.backups.filtered, 'backup')} made before the same way. ` : ''}` +
          `${x.backups.sealed > 0 ? `${sealedBackupsWarning(x.backups.sealed)} ` : ''}` +
          `${x.retold > 0 ? `Told ${quantity(x.retold, 'episode')} again by today's rules (title, summary, keywords). ` : ''}` +
          `Re-indexed ${quantity(x.episodes, 'episode')} (embedded ${x.embedded}) and ${quantity(x.facts, 'fact')} (embedded ${x.factsEmbedded}).`,
      );
    });

  program
    .command('stats')
    .description('counts per owner')
    .option('--owner <id>', 'only this owner')
    .action(async (o: { owner?: string }) => {
      await run(g(), 'off', 'stats', { ownerId: o.owner }, renderStats);
    });

  program
    .command('health')
    .description('database status, counts, last write, embedding model and LLM availability; checks the indexes against the episodes')
    .option(
      '--deep',
      "also compare every keyword posting with its episode's and run PostgreSQL's B-tree check over every index (reads the whole store)",
    )
    .action(async (o: { deep?: boolean }) => {
      await run(g(), 'probe', 'health', { deep: o.deep ?? false }, (h) => `${renderHealth(h)}\n${renderLlmHealth(h.llm)}`);
    });

  program
    .command('web')
    .description('open the journal in a browser: the viewer and the API on 127.0.0.1, guarded by a per-run token')
    .option('--port <n>', 'port (default: a free one)', int)
    .option('--no-open', 'only print the link, do not open a browser')
    .action(async (o: { port?: number; open: boolean }) => {
      // Loaded on demand: the other commands never pay for the HTTP bridge.
      const { runWeb } = await import('../http/web.js');
      await runWeb({ startup: resolveStartup(g().home), port: o.port, open: o.open, json: Boolean(g().json) });
    });

  addForgettingCommands(program, episodes, (embeddings, op, input, human) => run(g(), embeddings, op, input, human), owner);
  addLlmCommands(program, (embeddings, op, input, human) => run(g(), embeddings, op, input, human), owner);
  addDataCommands(program, {
    change: (op, input, human) => run(g(), 'app', op, input, human),
    show: (op, input, human) => run(g(), 'app-probe', op, input, human),
  });
  addExportCommand(
    program,
    (op, input, human) => run(g(), 'off', op, input, human),
    () => process.env.NEMORI_OWNER ?? DEFAULT_OWNER,
  );
  addCompanionCommands(program, { run: (embeddings, op, input, human) => run(g(), embeddings, op, input, human), owner, int, global: g });
  addKnowledgeCommands(program, {
    run: (embeddings, op, input, human, opts) => run(g(), embeddings, op, input, human, opts),
    owner,
    int,
    num,
    progress: () => progressReporter(g()),
  });

  return program;
}

/** Waits for the engines the command opened to close; a failure to close is the command's failure. */
async function closed(): Promise<void> {
  const all = closing.splice(0);
  const results = await Promise.allSettled(all);
  const failed = results.find((r): r is PromiseRejectedResult => r.status === 'rejected');
  if (failed) throw failed.reason;
}

export async function main(argv: string[]): Promise<void> {
  const program = buildCli();
  const report = (e: unknown) => {
    const message = (e as Error).message;
    if (program.opts<GlobalOptions>().json) {
      const code = isNemoriError(e) || e instanceof WireCallError ? e.code : 'INTERNAL';
      process.stdout.write(`${JSON.stringify({ error: { code, message } })}\n`);
    }
    process.stderr.write(`nemori: ${message}\n`);
    process.exitCode = 1;
  };
  try {
    await program.parseAsync(argv);
  } catch (e) {
    report(e);
  }
  try {
    await closed();
  } catch (e) {
    report(e);
  }
}
