/**
 * What a long-running engine process adds to its environment — the desktop app's engine process and
 * `nemori mcp` as the MCP client entries start it. The C library reads it before any code runs, so it
 * is set by whoever starts the process.
 *
 * glibc gives each thread that allocates its own malloc arena, and an arena gives back little of what
 * was freed in it. V8 optimises PGlite's WebAssembly on background threads, and what those compilations
 * freed stayed resident: 25–55 MB in a process searching 100k episodes (none with baseline code only),
 * ~120 MB after an import whose model thread embedded 20k episodes. With one arena it rejoins the main
 * heap, whose free top is returned. Imports ran as fast (±4 % both ways over five alternating pairs);
 * searches and loadContext took 1–4 % longer at the median (one lock for every thread's allocations).
 * Two arenas cost no time but kept most of an import's memory (20k episodes: 512 MB against 403).
 * Other C libraries ignore the variable.
 */

/** The variables to add on `platform` (glibc is Linux's C library). */
export function engineEnv(platform = process.platform) {
  return platform === 'linux' ? { MALLOC_ARENA_MAX: '1' } : {};
}
