#!/usr/bin/env node
/**
 * Runs a benchmark as the product runs: its sources bundled as the `nemori` command is
 * (bin/cli-bundle.mjs), in plain node. Under tsx, its loader thread and the sources it transpiled stay
 * in memory (and the model's worker thread registers tsx again), which no user's process has: a
 * process searching 100k episodes held 651 MB under tsx and 413–421 MB bundled. And in the environment
 * the product's engine processes start with (bin/engine-env.mjs); a variable set by the caller wins.
 *
 *   node bench/bundled.mjs bench/scale.ts [its arguments]
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { buildBundle } from '../bin/cli-bundle.mjs';
import { engineEnv } from '../bin/engine-env.mjs';

const [entry, ...args] = process.argv.slice(2);
if (!entry) throw new Error('usage: node bench/bundled.mjs bench/<name>.ts [arguments]');
const root = path.resolve(import.meta.dirname, '..');
const dir = path.join(root, 'node_modules', '.cache', 'nemori-bench', `${path.basename(entry, '.ts')}-${process.pid}`);
try {
  await buildBundle(dir, dir, { entryPoints: [path.resolve(entry)] }, 'bench.mjs');
  const run = spawnSync(process.execPath, [...process.execArgv, path.join(dir, 'bench.mjs'), ...args], {
    stdio: 'inherit',
    env: { ...engineEnv(), ...process.env },
  });
  process.exitCode = run.status ?? 1;
} finally {
  fs.rmSync(dir, { recursive: true, force: true });
}
