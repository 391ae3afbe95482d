/**
 * How much of PGlite's WebAssembly V8 should optimise for a `nemori` command.
 *
 * V8 runs WebAssembly with its baseline compiler (Liftoff) first and optimises hot functions on
 * background threads. Those threads take the CPU the command and the embedding model's thread need:
 * on 2 cores, a query embedded right after the store opened waited 0.5–0.8 s for them (11–35 ms with
 * baseline code only), and a process waits for them before it exits.
 * - A command that answers and quits runs on baseline code only: `nemori load` on a small store took
 *   1.33 s, 0.69 s without optimising (median of 8).
 * - A server (`mcp`, `web`) optimises only what stays hot (a budget 100 times V8's): its first
 *   answers do not compete with the compiler, and searches at 100k episodes reach optimised speed
 *   (baseline code alone searched 5–15 % slower there).
 * - Long work (imports, rebuilds, exports, backups, restores, moves, deep health checks) keeps V8's default.
 */

/** A long-running server's setting: only what stays hot is optimised (the desktop app's engine process uses it too). */
export const SERVER_TIERING = '--wasm-tiering-budget=180000000';

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

/** The V8 flag for the command `argv` gives, or null for V8's default. */
export function wasmTiering(argv) {
  const [command, sub] = words(argv);
  if (['import', 'rebuild', 'export'].includes(command)) return null;
  if (command === 'data' && ['move', 'backup', 'restore'].includes(sub)) return null;
  // Checks every index of the store: at 100k episodes 43–46 s on baseline code, 32–34 s optimised.
  if (command === 'health' && argv.includes('--deep')) return null;
  if (command === 'web' || (command === 'mcp' && sub !== 'config')) return SERVER_TIERING;
  return '--liftoff-only';
}
