/**
 * Once per `vitest run`, before any worker starts, handed to the workers (and every Node process they
 * start) through the environment:
 * - the template new stores start from (test/helpers/store-template.mjs), made by the real Store.open:
 *   initdb and every migration;
 * - the `nemori` command's bundle (bin/cli-bundle.mjs), built before the tests start it in parallel;
 * - a temporary folder for everything the run writes, removed at its end.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { gunzipSync } from 'node:zlib';
import { PGlite } from '@electric-sql/pglite';
import { vector } from '@electric-sql/pglite-pgvector';
import { Store } from '../core/store/store.js';
import { currentCliBundle } from '../bin/cli-bundle.mjs';
import { TEMPLATE_ENV } from './helpers/store-template.mjs';

const PRELOAD = path.join(import.meta.dirname, 'helpers', 'store-template.mjs');

async function buildStoreTemplate(dir: string): Promise<void> {
  const store = await Store.open();
  const backup = path.join(dir, 'memory.tar.gz');
  try {
    await store.backup(backup);
  } finally {
    await store.close();
  }
  const tar = gunzipSync(fs.readFileSync(backup));
  fs.writeFileSync(path.join(dir, 'memory.tar'), tar);
  fs.rmSync(backup);
  // The same database as a closed data folder, for stores opened on disk.
  const db = await PGlite.create({ dataDir: path.join(dir, 'pg'), loadDataDir: new Blob([tar]), extensions: { vector } });
  await db.close();
}

export default async function setup(): Promise<() => void> {
  // Every project of the run calls this, in one process: the first one's template and folder serve
  // them all (a second would also make its folder inside the first one's, as TMPDIR now points there).
  if (process.env[TEMPLATE_ENV]) return () => {};
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'nemori-test-run-'));
  const template = path.join(dir, 'store-template');
  fs.mkdirSync(template);
  await Promise.all([buildStoreTemplate(template), currentCliBundle()]);
  process.env[TEMPLATE_ENV] = template;
  // Every temporary folder a test or a process it starts makes (os.tmpdir()) goes in this run's folder,
  // which goes when the run ends: thousands of stores a day otherwise fill the disk.
  const tmp = path.join(dir, 'tmp');
  fs.mkdirSync(tmp);
  process.env.TMPDIR = tmp;
  process.env.NODE_OPTIONS = [process.env.NODE_OPTIONS, `--import=${pathToFileURL(PRELOAD).href}`].filter(Boolean).join(' ');
  return () => fs.rmSync(dir, { recursive: true, force: true, maxRetries: 3 });
}
