import { Option, type Command } from 'commander';
import type { OpOutput } from '../api/contract.js';
import { reasonText } from '../forgetting/reason-text.js';
import type { RunOperation } from './run-operation.js';
import { quantity } from '../text/describe.js';

/** `nemori forget …`, `nemori trash …`, `nemori archive …`, `nemori episodes mark`: forgetting from the command line. */

const day = (iso: string | null) => (iso ? iso.slice(0, 10) : '—');
const verb = { active: 'restore', archived: 'archive', trash: 'trash', purged: 'purge' } as const;

export function renderForgetRun(o: OpOutput<'runForgetting'>): string {
  const m = o.moved;
  const head = o.dryRun ? `Dry run as of ${day(o.now)}: nothing changed. It would` : `Forgetting pass as of ${day(o.now)}:`;
  const lines = [
    `${head} ${o.dryRun ? 'archive' : 'archived'} ${m.archived}, ${o.dryRun ? 'trash' : 'trashed'} ${m.trashed}, ${o.dryRun ? 'purge' : 'purged'} ${m.purged}, ${o.dryRun ? 'restore' : 'restored'} ${m.restored} of ${quantity(o.evaluated, 'memory')}; importance ${o.dryRun ? 'would change' : 'changed'} for ${o.importanceUpdated}.`,
    `Now: ${o.tiers.active} active, ${o.tiers.archived} archived, ${o.tiers.trash} in the trash.`,
  ];
  const shown = o.moves.slice(0, 50);
  for (const x of shown) lines.push(`  ${verb[x.to].padEnd(8)} ${x.id}  ${x.title.slice(0, 60)}\n           ${reasonText(x.reason)}`);
  if (o.moves.length > shown.length) lines.push(`  … and ${o.moves.length - shown.length} more (--json lists all)`);
  return lines.join('\n');
}

function renderTierList(what: string, empty: string) {
  return (o: OpOutput<'listTrash'>): string => {
    if (o.items.length === 0) return empty;
    const rows = o.items.map((x) => {
      const purge = x.purgeAfter ? `, purged after ${day(x.purgeAfter)}` : '';
      return `${day(x.start)}  ${x.id}  ${x.title.slice(0, 60)}\n            ${what} ${day(x.since)}${purge}: ${x.reason ? reasonText(x.reason) : ''}`;
    });
    if (o.nextCursor) rows.push(`… more: --cursor ${o.nextCursor}`);
    return rows.join('\n');
  };
}

function renderRestore(o: OpOutput<'restoreFromTrash'>): string {
  const from = o.from === 'trash' ? 'the trash' : 'the archive';
  return `Restored ${o.id} from ${from}${o.reembedded ? ' (re-embedded: back in meaning search)' : ''}.${o.warnings.map((w) => `\nwarning: ${w}`).join('')}`;
}

function renderMark(o: OpOutput<'markMemory'>): string {
  const what =
    o.marked === true
      ? 'important: exempt from forgetting'
      : o.marked === false
        ? 'not important: it will fade quickly'
        : 'unmarked: use and time decide again';
  return `Marked ${o.id} ${what} (importance ${o.importance.toFixed(2)}, ${o.tier}${o.restored ? ', restored' : ''}).`;
}

function renderForgetAbout(o: OpOutput<'forgetAbout'>): string {
  const head = o.dryRun
    ? `Dry run: forgetting “${o.about}” would delete ${quantity(o.memories.length, 'memory')}, the text of ${quantity(o.messages, 'message')} and touch ${quantity(o.conversations, 'conversation')}:`
    : `Forgot “${o.about}”: deleted ${quantity(o.memories.length, 'memory')}, the text of ${quantity(o.messages, 'message')}, and cleaned ${quantity(o.conversations, 'conversation')}${o.erased ? '; the text is erased from the data folder' : ''}.`;
  return [head, ...o.memories.map((m) => `  ${m.kind} ${m.id} [${m.tier}]  ${m.title.slice(0, 70)}`)].join('\n');
}

function renderExplain(o: OpOutput<'explainDecay'>): string {
  return [
    `${o.kind} ${o.id}: ${o.tier}${o.exempt ? ' (marked important: exempt)' : ''}`,
    `decay score ${o.score.toFixed(1)} (archive at ${o.thresholds.archive}, trash at ${o.thresholds.trash})`,
    `importance ${o.importance.toFixed(2)} (base ${o.baseImportance.toFixed(2)}), recalled ${o.recallCount}×, last ${day(o.lastAccessed)}, ${o.elapsedDays.toFixed(0)} days untouched`,
    `if nobody recalls it: archived ${o.projected.archive ? `on ${day(o.projected.archive)}` : '—'}, trash ${o.projected.trash ? `on ${day(o.projected.trash)}` : '—'}`,
  ].join('\n');
}

export function addForgettingCommands(program: Command, episodes: Command, run: RunOperation, owner: () => Option): void {
  const forget = program.command('forget').description('forgetting: decay passes and deleting everything about something');
  forget
    .command('run')
    .description('run a forgetting pass: archive, trash and purge what has faded, restore what came back')
    .addOption(owner())
    .option('--dry-run', 'list what would move where and why; change nothing')
    .option('--now <date>', 'run as of this date (YYYY-MM-DD or ISO 8601) instead of today')
    .action(async (o: { owner: string; dryRun?: boolean; now?: string }) => {
      await run(o.dryRun ? 'off' : 'auto', 'runForgetting', { ownerId: o.owner, dryRun: Boolean(o.dryRun), now: o.now }, renderForgetRun);
    });
  forget
    .command('about')
    .description('delete everything about a person, place or keyword: memories, their sources, vectors and index entries')
    .argument('<words...>')
    .addOption(owner())
    .option('--dry-run', 'list what would be deleted; change nothing')
    .action(async (words: string[], o: { owner: string; dryRun?: boolean }) => {
      await run('off', 'forgetAbout', { ownerId: o.owner, about: words.join(' '), dryRun: Boolean(o.dryRun) }, renderForgetAbout);
    });
  forget
    .command('explain')
    .description('why a memory is where it is, and when it would fade')
    .argument('<id>')
    .addOption(owner())
    .action(async (id: string, o: { owner: string }) => {
      await run('off', 'explainDecay', { ownerId: o.owner, id }, renderExplain);
    });

  /** `list` and `restore` of a tier's folder of memories (`trash`, `archive`). */
  const tierCommands = (
    folder: Command,
    list: 'listTrash' | 'listArchive',
    restore: 'restoreFromTrash' | 'restoreFromArchive',
    render: (o: OpOutput<'listTrash'>) => string,
  ) => {
    folder
      .command('list')
      .addOption(owner())
      .option('--limit <n>', 'page size', (v) => Number.parseInt(v, 10), 50)
      .option('--cursor <cursor>', 'next page, from the previous output')
      .action(async (o: { owner: string; limit: number; cursor?: string }) => {
        await run('off', list, { ownerId: o.owner, limit: o.limit, cursor: o.cursor }, render);
      });
    folder
      .command('restore')
      .argument('<id>')
      .addOption(owner())
      .action(async (id: string, o: { owner: string }) => {
        await run('auto', restore, { ownerId: o.owner, id }, renderRestore);
      });
    return folder;
  };

  const trash = tierCommands(
    program.command('trash').description('memories on their way out: restorable until purged'),
    'listTrash',
    'restoreFromTrash',
    renderTierList('trashed', 'The trash is empty.'),
  );
  trash
    .command('purge')
    .description('delete what is in the trash for good, now')
    .addOption(owner())
    .option('--id <id...>', 'only these memories')
    .action(async (o: { owner: string; id?: string[] }) => {
      await run(
        'off',
        'purgeTrash',
        { ownerId: o.owner, ids: o.id },
        (x) => `Purged ${quantity(x.purged, 'memory')} from the trash for good.`,
      );
    });

  tierCommands(
    program.command('archive').description('faded memories: out of meaning search, still found by keyword and id'),
    'listArchive',
    'restoreFromArchive',
    renderTierList('archived', 'The archive is empty.'),
  );

  episodes
    .command('mark')
    .description('say whether a memory matters: your word wins over use and time')
    .argument('<id>')
    .addOption(owner())
    .addOption(new Option('--important', 'exempt it from forgetting').conflicts(['notImportant', 'unmark']))
    .addOption(new Option('--not-important', 'let it fade quickly').conflicts(['unmark']))
    .addOption(new Option('--unmark', 'withdraw your mark'))
    .action(async (id: string, o: { owner: string; important?: boolean; notImportant?: boolean; unmark?: boolean }) => {
      if (!o.important && !o.notImportant && !o.unmark) throw new Error('say --important, --not-important or --unmark');
      const important = o.important ? true : o.notImportant ? false : null;
      await run(important ? 'auto' : 'off', 'markMemory', { ownerId: o.owner, id, important }, renderMark);
    });
}
