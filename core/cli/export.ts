import path from 'node:path';
import type { Command } from 'commander';
import type { OperationName, OpInput, OpOutput } from '../api/contract.js';
import { dim } from './output.js';
import { isSealedFile } from '../store/backup-crypto.js';
import { readPassphrase, type PassphraseFlags } from './passphrase.js';

/** `nemori export` and reading an export back with `nemori import`: the open format of docs/export-format.md. */

type Run = <K extends OperationName>(op: K, input: OpInput<K>, human: (o: OpOutput<K>) => string) => Promise<OpOutput<K>>;

const counted = (counts: Record<string, number>) =>
  dim(
    Object.entries(counts)
      .filter(([, n]) => n > 0)
      .map(([t, n]) => `${n} ${t}`)
      .join(', '),
  );

export function addExportCommand(program: Command, run: Run, owner: () => string): void {
  program
    .command('export <file>')
    .description('write your whole memory to <file>: JSON Lines in a zip, an open documented format (`nemori import` reads it back)')
    .option('--owner <id>', 'whose memory')
    .option('--encrypt', 'encrypt it with a passphrase (prompted, or $NEMORI_PASSPHRASE, or --passphrase-stdin)')
    .option('--passphrase-stdin', 'read the passphrase from the first line of standard input')
    .action(async (file: string, o: { owner?: string; encrypt?: boolean } & PassphraseFlags) => {
      const passphrase = o.encrypt ? await readPassphrase(o, 'seal', 'the export') : undefined;
      await run('exportMemory', { ownerId: o.owner ?? owner(), file: path.resolve(file), ...(passphrase ? { passphrase } : {}) }, (x) =>
        [`exported${x.encrypted ? ', encrypted' : ''}: ${x.file} (${x.bytes} bytes)`, counted(x.counts)].join('\n'),
      );
    });
}

/** The files of an import that are Nemori exports (the rest are chat exports). */
export async function nemoriExports(files: readonly string[]): Promise<string[]> {
  const { isNemoriExport } = await import('../ingest/export-archive.js');
  return files.filter(isNemoriExport);
}

/** Reads one Nemori export back into an empty memory, asking for its passphrase when it is encrypted. */
export async function importExport(run: Run, file: string, ownerId: string, o: PassphraseFlags): Promise<void> {
  const passphrase = isSealedFile(file) ? await readPassphrase(o, 'open', path.basename(file)) : undefined;
  await run('importMemory', { ownerId, file: path.resolve(file), ...(passphrase ? { passphrase } : {}) }, (x) =>
    [`✓ ${file}: the memory exported ${x.exportedAt.slice(0, 10)} is back`, `  ${counted(x.counts)}`].join('\n'),
  );
}
