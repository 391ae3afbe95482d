/**
 * `nemori` runs its sources bundled (split where they are loaded on demand), kept under node_modules/.cache and named by a
 * hash of core/: the same sources start the same bundle, and any change to them names another.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { sourcesHash } from '../../bin/cli-bundle.mjs';
import { runNemori } from '../helpers/cli.js';
import { fixture, tempDir } from '../helpers/engine.js';
import { offlineEnv } from '../helpers/mcp.js';

const ROOT = path.join(import.meta.dirname, '..', '..');
const CACHE = path.join(ROOT, 'node_modules', '.cache', 'nemori-cli');

describe('the command bundled', { timeout: 120_000 }, () => {
  it('starts from the bundle of the sources as they are, without building it again', async () => {
    const current = path.join(CACHE, `nemori-${sourcesHash(path.join(ROOT, 'core'))}`);
    // The run's setup built it before any test started the command; a start marks it used.
    const built = fs.statSync(current);
    const home = tempDir('nemori-bundle-');
    const env = offlineEnv(home);
    const imported = await runNemori(['--home', home, '--no-llm', 'import', fixture('import', 'two-days.json')], env);
    expect(imported.code, imported.stderr).toBe(0);
    // Meaning search: the model ran in the worker thread bundled beside the command.
    const r = await runNemori(['--home', home, '--no-llm', '--json', 'search', 'Gornergrat boots'], env);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ mode: 'hybrid', warnings: [], results: [expect.anything()] });
    // The program, the model's worker, and the parts the program loads when it needs them.
    const files = fs.readdirSync(current);
    const parts = files.filter((f) => /^part-[A-Z0-9]+\.mjs$/.test(f));
    expect(parts.length).toBeGreaterThan(0);
    expect(files.sort()).toEqual(['embed-worker.js', 'nemori.mjs', 'package.json', ...parts].sort());
    const after = fs.statSync(current);
    expect(after.ino).toBe(built.ino);
    expect(after.mtimeMs).toBeGreaterThan(built.mtimeMs);
  });

  it('names the sources by every file name and content under them, and by where they are', () => {
    const dir = tempDir('nemori-sources-');
    fs.mkdirSync(path.join(dir, 'store'));
    fs.writeFileSync(path.join(dir, 'store', 'a.ts'), 'export const a = 1;\n');
    fs.writeFileSync(path.join(dir, 'b.ts'), 'export const b = 2;\n');
    const first = sourcesHash(dir);
    expect(sourcesHash(dir)).toBe(first);

    fs.writeFileSync(path.join(dir, 'store', 'a.ts'), 'export const a = 3;\n');
    const edited = sourcesHash(dir);
    expect(edited).not.toBe(first);

    fs.renameSync(path.join(dir, 'b.ts'), path.join(dir, 'c.ts'));
    const renamed = sourcesHash(dir);
    expect(renamed).not.toBe(edited);

    fs.writeFileSync(path.join(dir, 'store', 'new.sql'), 'SELECT 1;\n');
    const added = sourcesHash(dir);
    expect(added).not.toBe(renamed);

    const copy = tempDir('nemori-sources-');
    fs.cpSync(dir, copy, { recursive: true });
    expect(sourcesHash(copy)).not.toBe(added);
  });
});
