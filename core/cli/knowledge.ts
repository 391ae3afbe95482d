import { Option, type Command } from 'commander';
import type { OpInput, OpOutput } from '../api/contract.js';
import type { ProgressEvent } from '../engine/open-engine.js';
import type { EpisodeRef } from '../api/knowledge-contract.js';
import type { FactView } from '../api/views.js';
import { bold, dim, renderResults, when } from './output.js';
import type { RunOperation } from './run-operation.js';
import { quantity } from '../text/describe.js';

/** `nemori knowledge …`: semantic memory (facts and their versions) from the command line. */

/** What the host command line lends the knowledge commands: running an operation, the shared options and parsers. */
export interface KnowledgeCli {
  run: RunOperation;
  owner: () => Option;
  /** Flag parsers: a bad number is an input error, reported like any other. */
  int: (v: string) => number;
  num: (v: string) => number;
  /** A progress bar for long work (only on a terminal, never under --json). */
  progress: () => { onProgress: (e: ProgressEvent) => void; stop: () => void };
}

const collect = (v: string, previous: string[] = []) => [...previous, v];

// ── Shared options ──

interface FactFilterFlags {
  type?: string[];
  tag?: string[];
  source?: string;
  minConfidence?: number;
}

/** Metadata filters for facts (`remember`, and `search`, where they keep the search to facts). */
export function addFactFilterOptions(cmd: Command, num: (v: string) => number): Command {
  return cmd
    .option('--type <entity_type>', 'only facts of this entity type (repeatable)', collect)
    .option('--tag <tag>', 'only facts with this tag (repeatable)', collect)
    .option('--source <source>', 'only facts from this source')
    .option('--min-confidence <x>', 'only facts at least this certain (0–1)', num);
}

export function factFilters(o: FactFilterFlags): Pick<OpInput<'remember'>, 'entityTypes' | 'tags' | 'source' | 'minConfidence'> {
  return { entityTypes: o.type, tags: o.tag, source: o.source, minConfidence: o.minConfidence };
}

interface MetadataFlags {
  context?: string;
  tag?: string[];
  keyword?: string[];
  source?: string;
  importance?: number;
  confidence?: number;
  correction?: boolean;
}

function addMetadataOptions(cmd: Command, num: (v: string) => number): Command {
  return cmd
    .option('--context <text>', 'where or how you learnt it, in a sentence')
    .option('--tag <tag>', 'a tag (repeatable)', collect)
    .option('--keyword <word>', 'a search keyword (repeatable)', collect)
    .option('--source <source>', 'where it comes from (a name, a URL)')
    .option('--importance <x>', 'how much it matters (0–1)', num)
    .option('--confidence <x>', 'how sure you are (0–1)', num)
    .option('--correction', 'the stored value was wrong: the new version corrects it instead of updating it');
}

function metadata(o: MetadataFlags): NonNullable<OpInput<'upsertKnowledge'>['metadata']> {
  return {
    context: o.context,
    tags: o.tag,
    keywords: o.keyword,
    source: o.source,
    importance: o.importance,
    confidence: o.confidence,
    correction: o.correction,
  };
}

// ── Renderings ──

const pct = (x: number) => x.toFixed(2);
const episodeLine = (e: EpisodeRef) => `${when(e.start)}  ${e.title}  ${dim(e.id)}`;

function factLine(f: FactView): string {
  return `${bold(f.key)} ${dim(`v${f.version}`)}  ${f.value.slice(0, 100)}${f.value.length > 100 ? '…' : ''}`;
}

function renderList(trash: boolean) {
  return (o: OpOutput<'listKnowledge'>): string => {
    if (o.facts.length === 0) {
      return trash
        ? 'The knowledge trash is empty.'
        : 'No facts yet. Add one with `nemori knowledge upsert <key> <value>`, or let discovery learn them from your episodes.';
    }
    const head = trash
      ? 'Deleted facts (bring one back with `nemori knowledge undelete <key>`):'
      : o.entityTypes.map((t) => `${t.entityType} ${t.count}`).join(' · ');
    const rows = o.facts.map((f) => `${factLine(f)}${f.tier === 'archived' ? dim(' [archived]') : ''}`);
    if (o.nextCursor) rows.push(dim(`… more: --cursor ${o.nextCursor}`));
    return [dim(head), ...rows].join('\n');
  };
}

function factHeader(f: FactView): string[] {
  const meta = [
    `version ${f.version} · confidence ${pct(f.confidence)} · importance ${pct(f.importance)} · ${f.tier}${f.marked === true ? ' (marked important)' : ''}`,
    f.tags.length ? `tags: ${f.tags.join(', ')}` : '',
    f.source ? `source: ${f.source}` : '',
    `learnt ${when(f.createdAt)} by ${f.discoveryMethod}, changed ${when(f.updatedAt)}, recalled ${f.accessCount}×`,
  ].filter(Boolean);
  // The label is the key as written: worth showing only when it is spelt differently.
  return [
    `${bold(f.key)}  ${`${f.entityType}:${f.label}` !== f.key ? dim(f.label) : ''}`.trimEnd(),
    f.value,
    ...(f.context ? [dim(f.context)] : []),
    ...meta.map(dim),
  ];
}

type Timeline = OpOutput<'getKnowledge'>['timeline'];

function renderTimeline(timeline: Timeline, current: number): string[] {
  return timeline.map((v, i) => {
    const before = timeline[i - 1];
    const link = v.link && before ? `${v.link} v${before.version}` : (v.link ?? 'first');
    const flags = [link, v.method, v.corrected ? 'corrected later' : '', v.version === current ? 'current' : ''].filter(Boolean).join(', ');
    const from = v.episode ? `\n       from “${v.episode.title}” (${when(v.episode.start)})` : '';
    return `  v${v.version}  ${dim(when(v.createdAt))}  ${v.value}  ${dim(`(${flags}; confidence ${pct(v.confidence)})`)}${from}`;
  });
}

function renderRelatedLines(r: OpOutput<'relatedKnowledge'>): string[] {
  const line = (x: OpOutput<'relatedKnowledge'>['direct'][number]) =>
    `  ${x.type.padEnd(12)} ${factLine(x.fact)} ${dim(`(${pct(x.strength)}${x.via ? ', through a neighbour' : ''})${x.description ? ` ${x.description}` : x.discoveryEpisode ? ` learnt together in “${x.discoveryEpisode.title}”` : ''}`)}`;
  return [...r.direct.map(line), ...r.indirect.map(line)];
}

function renderFact(o: OpOutput<'getKnowledge'>): string {
  const section = (title: string, lines: string[]) => (lines.length ? ['', bold(`${title} (${lines.length})`), ...lines] : []);
  return [
    ...factHeader(o.fact),
    ...(o.discoveryEpisode ? [dim(`discovered in “${o.discoveryEpisode.title}” (${when(o.discoveryEpisode.start)})`)] : []),
    ...section('Versions', renderTimeline(o.timeline, o.fact.version)),
    ...section(
      'Linked episodes',
      o.linkedEpisodes.map((e) => `  ${episodeLine(e)}`),
    ),
    ...section(
      'Episodes that changed it',
      o.evolutionEpisodes.map((e) => `  ${episodeLine(e)}`),
    ),
    ...section('Related facts', renderRelatedLines(o.related)),
    ...section(
      'Sources',
      o.sources.map((m) => `  ${dim(when(m.sentAt))} ${m.speaker}: ${m.text.slice(0, 200)}`),
    ),
  ].join('\n');
}

function renderHistory(o: OpOutput<'getKnowledge'>): string {
  const n = o.timeline.length;
  const pruned = o.timeline[0] && o.timeline[0].version > 1 ? dim(` (versions before v${o.timeline[0].version} were pruned)`) : '';
  return [
    `${bold(o.fact.key)}: ${n} version${n === 1 ? '' : 's'}, oldest first${pruned}`,
    ...renderTimeline(o.timeline, o.fact.version),
  ].join('\n');
}

function renderVersion(o: OpOutput<'getKnowledgeVersion'>): string {
  const v = o.version;
  return [
    `${bold(o.fact.key)} version ${v.version} of ${o.fact.version}${v.version === o.fact.version ? ' (current)' : ''}`,
    v.value,
    ...(v.context ? [dim(v.context)] : []),
    dim(
      `${when(v.createdAt)} · ${v.link ?? 'first version'} · ${v.method} · confidence ${pct(v.confidence)}${v.corrected ? ' · corrected by a later version' : ''}`,
    ),
    ...(v.episodeId ? [dim(`from episode ${v.episodeId}`)] : []),
    ...(v.sourceMessageIds.length ? [dim(`${v.sourceMessageIds.length} source messages`)] : []),
  ].join('\n');
}

function renderRelated(key: string) {
  return (o: OpOutput<'relatedKnowledge'>): string => {
    const lines = renderRelatedLines(o);
    return lines.length ? [`Facts related to ${bold(key)}:`, ...lines].join('\n') : `No facts are related to ${key} yet.`;
  };
}

const said = { created: 'Learnt', evolved: 'Updated', corrected: 'Corrected', reinforced: 'Confirmed', merged: 'Merged into' } as const;

function renderWrite(o: OpOutput<'upsertKnowledge'>): string {
  const was =
    o.action === 'evolved' || o.action === 'corrected'
      ? ` (was: ${o.previousValue ?? '—'})`
      : o.action === 'reinforced'
        ? ` (same value; confidence ${pct(o.fact.confidence)})`
        : o.action === 'merged'
          ? ' (a near-duplicate)'
          : '';
  return [
    `${said[o.action]} ${bold(o.key)} v${o.version}: ${o.fact.value}${was}`,
    ...o.evicted.map((e) => dim(`  evicted ${e.key} (importance ${pct(e.importance)}): ${e.reason}`)),
  ].join('\n');
}

function renderForget(o: OpOutput<'forgetKnowledge'>): string {
  const s = o.store;
  const keys = o.forgotten.map((f) => `  ${f.key} v${f.version}`);
  const head =
    o.forgotten.length === 0
      ? 'Nothing to forget.'
      : o.mode === 'hard'
        ? `Deleted ${quantity(o.forgotten.length, 'fact')} for good, with every version:`
        : `Moved ${quantity(o.forgotten.length, 'fact')} to the trash (bring one back with \`nemori knowledge undelete <key>\`):`;
  return [head, ...keys, dim(`${quantity(s.items, 'fact')}, ${quantity(s.tokens, 'token')} kept; ${s.trashed} in the trash.`)].join('\n');
}

function renderSummary(o: OpOutput<'summarizeKnowledge'>): string {
  if (o.keys.length === 0) return 'No facts to summarize.';
  return `${o.summary}\n${dim(`${quantity(o.keys.length, 'fact')}, ${quantity(o.tokens, 'token')}${o.left ? `; ${o.left} more did not fit (raise --tokens)` : ''}`)}`;
}

function renderCapacity(o: OpOutput<'knowledgeCapacity'>): string {
  const next = o.nextEviction;
  return [
    `${o.items} of ${o.maxItems} facts, ${o.tokens} of ${o.maxTokens} tokens${o.over ? ' — over capacity: the next write evicts' : ''}`,
    `${o.protected} protected (important), ${o.lowImportance} of low importance, ${quantity(o.versions, 'version')} kept, ${o.trashed} in the trash`,
    dim(o.policy),
    next ? `next to go: ${next.key} (importance ${pct(next.importance)}, last used ${when(next.lastUsed)})` : 'nothing would be evicted',
    `discovery queue: ${quantity(o.discoveryQueue.waiting, 'episode')} waiting${o.discoveryQueue.failed ? `, ${o.discoveryQueue.failed} failed` : ''}`,
  ].join('\n');
}

function renderDiscovery(o: OpOutput<'runDiscovery'>): string {
  if (o.skipped)
    return `Knowledge discovery waits for an LLM — ${o.skipped}.\nSet NEMORI_LLM_MODEL or pass --llm-model (check it with \`nemori llm test\`).`;
  const f = o.facts;
  const lines = [
    o.episodes === 0 && o.failed === 0
      ? 'Nothing to discover: no episode is waiting.'
      : `Read ${quantity(o.episodes, 'episode')} (${quantity(o.llmCalls, 'LLM call')}): ${quantity(f.created, 'fact')} learnt, ${f.evolved} updated, ${f.corrected} corrected, ${f.reinforced} confirmed, ${f.merged} merged; ${quantity(o.relationships, 'relationship')}.`,
  ];
  if (o.failed)
    lines.push(`${quantity(o.failed, 'episode')} failed; ${o.failed === 1 ? 'it is' : 'they are'} tried again on the next run.`);
  if (o.stoppedEarly) lines.push('The LLM stopped answering; the rest waits for the next run.');
  for (const e of o.errors) lines.push(`  ${e}`);
  for (const e of o.evicted) lines.push(dim(`  evicted ${e.key}: ${e.reason}`));
  if (o.remaining) lines.push(`${quantity(o.remaining, 'episode')} still ${o.remaining === 1 ? 'waits' : 'wait'} for discovery.`);
  return lines.join('\n');
}

function renderRemember(prompt: string) {
  return (o: OpOutput<'remember'>): string => (o.items.length ? renderResults(o.items) : `No facts match “${prompt}”.`);
}

function renderQuery(query: string) {
  return (o: OpOutput<'enhancedQuery'>): string => {
    if (o.primary.length === 0 && o.secondary.length === 0) return `No memories match “${query}”.`;
    const parts = [renderResults(o.primary)];
    if (o.secondary.length) parts.push(bold('From your conversations:'), renderResults(o.secondary));
    const support = o.support.filter((s) => s.linkedEpisodes.length + s.evolutionEpisodes.length > 0);
    if (support.length) {
      const key = new Map(o.primary.flatMap((r) => (r.kind === 'semantic' ? [[r.id, r.key] as const] : [])));
      parts.push(
        bold('Where the facts come from:'),
        ...support.map((s) =>
          [`  ${key.get(s.factId) ?? s.factId}`, ...[...s.linkedEpisodes, ...s.evolutionEpisodes].map((e) => `    ${episodeLine(e)}`)].join(
            '\n',
          ),
        ),
      );
    }
    return parts.join('\n\n');
  };
}

// ── Commands ──

export function addKnowledgeCommands(program: Command, { run, owner, int, num, progress }: KnowledgeCli): void {
  const knowledge = program.command('knowledge').description('semantic memory: facts with versions, learnt from episodes or told directly');

  knowledge
    .command('list')
    .description('facts, most recently changed first')
    .addOption(owner())
    .option('--type <entity_type>', 'only this entity type (person, preference, …)')
    .option('--trash', 'deleted facts (restorable with undelete)')
    .option('--limit <n>', 'page size', int, 100)
    .option('--cursor <cursor>', 'next page, from the previous output')
    .action(async (o: { owner: string; type?: string; trash?: boolean; limit: number; cursor?: string }) => {
      await run(
        'off',
        'listKnowledge',
        { ownerId: o.owner, entityType: o.type, tier: o.trash ? 'trash' : 'live', limit: o.limit, cursor: o.cursor },
        renderList(Boolean(o.trash)),
      );
    });

  knowledge
    .command('show')
    .description('one fact: value, versions, the episodes behind it, related facts and sources (counts as recalling it)')
    .argument('<key>', 'entity_type:identifier (any spelling) or the fact id')
    .addOption(owner())
    .action(async (key: string, o: { owner: string }) => {
      await run('off', 'getKnowledge', { ownerId: o.owner, key }, renderFact);
    });

  knowledge
    .command('history')
    .description('how a fact evolved: every kept version, what it updated or corrected, and the episode that caused it')
    .argument('<key>')
    .addOption(owner())
    .action(async (key: string, o: { owner: string }) => {
      await run('off', 'getKnowledge', { ownerId: o.owner, key }, renderHistory);
    });

  knowledge
    .command('version')
    .description('one version of a fact')
    .argument('<key>')
    .argument('<n>', 'version number', int)
    .addOption(owner())
    .action(async (key: string, version: number, o: { owner: string }) => {
      await run('off', 'getKnowledgeVersion', { ownerId: o.owner, key, version }, renderVersion);
    });

  knowledge
    .command('related')
    .description('facts related to this one, directly or through a neighbour')
    .argument('<key>')
    .addOption(owner())
    .addOption(new Option('--depth <n>', '1: direct only; 2: also through a neighbour').choices(['1', '2']).default('2'))
    .action(async (key: string, o: { owner: string; depth: '1' | '2' }) => {
      await run('off', 'relatedKnowledge', { ownerId: o.owner, key, depth: o.depth === '1' ? 1 : 2 }, renderRelated(key));
    });

  addMetadataOptions(
    knowledge
      .command('upsert')
      .description('store a fact under a key: a new key is learnt, a new value becomes a new version')
      .argument('<key>', 'entity_type:identifier, e.g. person:alice or preference:coffee')
      .argument('<value...>')
      .addOption(owner()),
    num,
  ).action(async (key: string, value: string[], o: MetadataFlags & { owner: string }) => {
    await run('auto', 'upsertKnowledge', { ownerId: o.owner, key, value: value.join(' '), metadata: metadata(o) }, renderWrite);
  });

  addMetadataOptions(
    knowledge
      .command('memorize')
      .description('remember a sentence; without --key it is filed under fact:<its first words>, or merged into a near-duplicate')
      .argument('<value...>')
      .option('--key <key>', 'store it under this key')
      .addOption(owner()),
    num,
  ).action(async (value: string[], o: MetadataFlags & { owner: string; key?: string }) => {
    await run('auto', 'memorize', { ownerId: o.owner, value: value.join(' '), key: o.key, metadata: metadata(o) }, renderWrite);
  });

  addFactFilterOptions(
    knowledge
      .command('remember')
      .description('the facts that answer a prompt (counts as recalling them)')
      .argument('<prompt...>')
      .addOption(owner())
      .option('--limit <n>', 'how many facts', int, 10),
    num,
  ).action(async (words: string[], o: FactFilterFlags & { owner: string; limit: number }) => {
    const prompt = words.join(' ');
    await run('auto', 'remember', { ownerId: o.owner, prompt, limit: o.limit, ...factFilters(o) }, renderRemember(prompt));
  });

  knowledge
    .command('forget')
    .description('forget facts: key:<entity_type:identifier>, oldest, least important, or before:<time>')
    .argument('<instruction...>')
    .addOption(owner())
    .option('--hard', 'delete for good, with every version (default: to the trash, restorable with undelete)')
    .action(async (words: string[], o: { owner: string; hard?: boolean }) => {
      await run('off', 'forgetKnowledge', { ownerId: o.owner, instruction: words.join(' '), mode: o.hard ? 'hard' : 'soft' }, renderForget);
    });

  knowledge
    .command('undelete')
    .description('bring a fact back from the trash')
    .argument('<key>')
    .addOption(owner())
    .action(async (key: string, o: { owner: string }) => {
      await run(
        'auto',
        'undeleteKnowledge',
        { ownerId: o.owner, key },
        (f) => `Restored ${bold(f.key)} v${f.version} from the trash: ${f.value}`,
      );
    });

  knowledge
    .command('summarize')
    .description('what you know, most important first, within a token budget (offline: never invents)')
    .argument('[scope]', 'an entity type (person) or a key prefix (person:john); default everything')
    .addOption(owner())
    .option('--tokens <n>', 'token budget', int, 500)
    .action(async (scope: string | undefined, o: { owner: string; tokens: number }) => {
      await run('off', 'summarizeKnowledge', { ownerId: o.owner, scope, tokenLimit: o.tokens }, renderSummary);
    });

  knowledge
    .command('capacity')
    .description('how full the fact store is, what would be evicted next, and the discovery queue')
    .addOption(owner())
    .action(async (o: { owner: string }) => {
      await run('off', 'knowledgeCapacity', { ownerId: o.owner }, renderCapacity);
    });

  knowledge
    .command('discover')
    .description('learn facts from the episodes waiting for discovery (needs an LLM)')
    .addOption(owner())
    .option('--limit <n>', 'at most this many episodes', int)
    .action(async (o: { owner: string; limit?: number }) => {
      const bar = progress();
      const out = await run(
        'auto',
        'runDiscovery',
        { ownerId: o.owner, limit: o.limit },
        (x) => {
          bar.stop();
          return renderDiscovery(x);
        },
        { onProgress: bar.onProgress },
      ).finally(bar.stop);
      if (out.failed > 0 || out.errors.length > 0) process.exitCode = 1;
    });

  knowledge
    .command('query')
    .description('search facts and episodes together, by the kind of answer you want')
    .argument('<text...>')
    .addOption(owner())
    .addOption(
      new Option(
        '--quality <q>',
        'factual: facts first; contextual: conversations first; comprehensive: both, with the episodes behind each fact; balanced: one ranking',
      )
        .choices(['factual', 'contextual', 'comprehensive', 'balanced'])
        .default('balanced'),
    )
    .option('--limit <n>', 'how many results', int, 10)
    .action(
      async (words: string[], o: { owner: string; quality: 'factual' | 'contextual' | 'comprehensive' | 'balanced'; limit: number }) => {
        const query = words.join(' ');
        await run('auto', 'enhancedQuery', { ownerId: o.owner, query, quality: o.quality, limit: o.limit }, renderQuery(query));
      },
    );
}
