import path from 'node:path';
import type { Command } from 'commander';
import type { OperationName, OpInput, OpOutput } from '../api/contract.js';
import { bold, dim } from './output.js';
import { isSealedFile } from '../store/backup-crypto.js';
import { readPassphrase, type PassphraseFlags } from './passphrase.js';
import { quantity } from '../text/describe.js';

/** `nemori data …`: where the memory lives, which model reads it, backups — what Settings → Your data does. */

/**
 * Runs an operation on the app's engine (core/api/app-engine.ts: it can reopen the store) and prints it:
 * `change` with the embedding model loaded, `show` for what only shows or copies the store (the model
 * is looked for, never downloaded).
 */
type RunOnApp = <K extends OperationName>(op: K, input: OpInput<K>, human: (o: OpOutput<K>) => string) => Promise<OpOutput<K>>;

function renderStartup(s: OpOutput<'getStartup'>): string {
  const pinned = (by: string | null) => (by ? dim(` (set by ${by} for this run)`) : '');
  return [
    `${bold('data folder')}      ${s.dataDir ?? 'in memory'}${pinned(s.dataDirPinnedBy)}`,
    `${bold('embedding model')}  ${s.embeddingModel}${pinned(s.modelPinnedBy)}`,
    dim(
      `offered: ${s.modelChoices.map((c) => `${c.id}${c.downloadMb ? ` (~${c.downloadMb} MB)` : ''}${c.recommended ? ', recommended' : ''}`).join('; ')}`,
    ),
  ].join('\n');
}

export function addDataCommands(program: Command, runOnApp: { change: RunOnApp; show: RunOnApp }): void {
  const data = program
    .command('data')
    .description('where the memory lives, which embedding model reads it, backups and restoring one')
    .action(async () => {
      await runOnApp.show('getStartup', {}, renderStartup);
    });

  data
    .command('move <folder>')
    .description('move the memory to an empty folder (copied, opened there, then removed from the old one); later runs use it')
    .action(async (folder: string) => {
      await runOnApp.change('setDataFolder', { folder: path.resolve(folder), mode: 'move' }, (o) =>
        [`moved: the memory now lives in ${o.startup.dataDir}`, ...o.leftBehind.map((p) => `could not remove the old ${p}`)].join('\n'),
      );
    });

  data
    .command('open <folder>')
    .description('use the memory in another folder from now on (an empty folder starts a new one); the current one stays where it is')
    .action(async (folder: string) => {
      await runOnApp.change(
        'setDataFolder',
        { folder: path.resolve(folder), mode: 'open' },
        (o) => `now using the memory in ${o.startup.dataDir}`,
      );
    });

  data
    .command('model <id>')
    .description('search with another embedding model (downloaded once); the current one stays if it cannot load')
    .action(async (modelId: string) => {
      await runOnApp.change('setEmbeddingModel', { modelId }, (o) =>
        [
          `now searching with ${o.startup.embeddingModel}`,
          ...(o.unembedded > 0
            ? [`${quantity(o.unembedded, 'episode')} ${o.unembedded === 1 ? 'has' : 'have'} no vectors from it yet: run \`nemori rebuild\``]
            : []),
        ].join('\n'),
      );
    });

  data
    .command('backup')
    .description('write a compressed copy of the whole store into <data folder>/backups (or --folder)')
    .option('--folder <dir>', 'where to write it')
    .option('--encrypt', 'encrypt it with a passphrase (prompted, or $NEMORI_PASSPHRASE, or --passphrase-stdin)')
    .option('--passphrase-stdin', 'read the passphrase from the first line of standard input')
    .action(async (o: { folder?: string; encrypt?: boolean } & PassphraseFlags) => {
      const passphrase = o.encrypt ? await readPassphrase(o, 'seal', 'the backup') : undefined;
      await runOnApp.show(
        'backup',
        { ...(o.folder ? { folder: path.resolve(o.folder) } : {}), ...(passphrase ? { passphrase } : {}) },
        (b) => `backed up${b.encrypted ? ', encrypted' : ''}: ${b.file} (${b.bytes} bytes)`,
      );
    });

  data
    .command('backups')
    .description('list the backups in the data folder, newest first')
    .action(async () => {
      await runOnApp.show('listBackups', {}, (o) =>
        o.backups.length
          ? o.backups
              .map(
                (b) =>
                  `${b.at}  ${b.file}  ${dim(`${b.bytes} bytes${b.encrypted ? ', encrypted' : ''}`)}` +
                  (b.mayHoldSecrets
                    ? `\n  may still hold secrets that older privacy rules let through: delete it if you do not need it`
                    : ''),
              )
              .join('\n')
          : `no backups in ${o.folder ?? 'memory'}`,
      );
    });

  data
    .command('restore <file>')
    .description('put the memory back as it was in a backup; the present memory is backed up first')
    .option('--passphrase-stdin', "read an encrypted backup's passphrase from the first line of standard input")
    .action(async (file: string, o: PassphraseFlags) => {
      const passphrase = isSealedFile(file) ? await readPassphrase(o, 'open', path.basename(file)) : undefined;
      await runOnApp.change(
        'restoreBackup',
        { file: path.resolve(file), ...(passphrase ? { passphrase } : {}) },
        (o) => `restored ${o.restored} (schema ${o.schemaVersion}); what was there before is in ${o.safetyBackup}`,
      );
    });
}
