/**
 * Whether a `nemori` command runs long enough to gain from V8's optimising WebAssembly compiler.
 *
 * PGlite is WebAssembly. V8 runs it with its baseline compiler (Liftoff) first and optimises the hot
 * functions on background threads, which take CPU beside the command and which a process waits for
 * before it exits. A command that answers and quits does better without: `nemori load` on a small
 * store took 1.33 s and 0.69 s with baseline code only (median of 8, 2 cores). Work that runs for
 * minutes or serves for hours — imports, rebuilds, exports, backups and restores, `web`, `mcp` — keeps
 * the optimised code: searches there ran 10–20 % faster with it (100k episodes).
 */

/** Global options that take a value (the command is the first word that is neither an option nor one of these values). */
const VALUED = new Set(['--home', '--progress', '--llm-base-url', '--llm-model', '--llm-api-key']);

/** The command and its subcommand as given: `['data', 'backup']`, `['search', 'boots']`, `[]`. */
function words(argv) {
  const out = [];
  for (let i = 0; i < argv.length && out.length < 2; i++) {
    const a = argv[i];
    if (VALUED.has(a)) i++;
    else if (!a.startsWith('-')) out.push(a);
  }
  return out;
}

export function runsLong(argv) {
  const [command, sub] = words(argv);
  if (['import', 'rebuild', 'export', 'web'].includes(command)) return true;
  if (command === 'mcp') return sub !== 'config';
  if (command === 'data') return ['move', 'backup', 'restore'].includes(sub);
  return false;
}
