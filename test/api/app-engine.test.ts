import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openAppEngine, type AppEngine } from '../../core/engine/app-engine.js';
import { resolveStartup } from '../../core/engine/startup.js';
import { TINY_MODEL_DIR } from '../fixtures/tiny-model/index.js';
import { fixture, openMemoryEngine, tempDir } from '../helpers/engine.js';

const OWNER = 'me';

/**
 * A host as a person has it: nothing pinned, Settings saved in `<XDG_DATA_HOME>/nemori/startup.json`,
 * the tiny model findable by id and nothing downloadable (the default model is then unavailable).
 */
function machine() {
  const root = tempDir('nemori-app-engine-');
  const env = { XDG_DATA_HOME: path.join(root, 'share'), NEMORI_MODEL_DIR: path.dirname(TINY_MODEL_DIR), NEMORI_ALLOW_DOWNLOAD: '0' };
  return { root, env, startup: () => resolveStartup(undefined, env) };
}

let open: AppEngine[] = [];
async function start(m: ReturnType<typeof machine>): Promise<AppEngine> {
  const engine = await openAppEngine({ startup: m.startup(), env: m.env, warn: () => {} });
  open.push(engine);
  return engine;
}
afterEach(async () => {
  await Promise.all(open.map((e) => e.close()));
  open = [];
});

const importTwoDays = (engine: AppEngine) => engine.call('importFiles', { ownerId: OWNER, paths: [fixture('import', 'two-days.json')] });
const episodeCount = async (engine: AppEngine) => (await engine.call('stats', { ownerId: OWNER })).owners[0]?.episodes ?? 0;
const savedStartup = (m: ReturnType<typeof machine>) => JSON.parse(fs.readFileSync(m.startup().file, 'utf8')) as Record<string, string>;

describe('the data folder, chosen in Settings', () => {
  it('moves the memory to an empty folder: the store follows, the old copy is gone, the next start finds it', async () => {
    const m = machine();
    const engine = await start(m);
    await importTwoDays(engine);
    const before = await episodeCount(engine);
    const from = (await engine.call('getStartup', {})).dataDir!;
    expect(from).toBe(path.join(m.env.XDG_DATA_HOME, 'nemori'));
    const to = path.join(m.root, 'Documents', 'Memory');

    const check = await engine.call('inspectFolder', { folder: to });
    expect(check).toMatchObject({ exists: false, holdsMemory: false, cannotMove: null, cannotOpen: null });

    const moved = await engine.call('setDataFolder', { folder: to, mode: 'move' });
    expect(moved.startup).toMatchObject({ dataDir: to, canChange: true, dataDirPinnedBy: null });
    expect(moved.leftBehind).toEqual([]);
    expect(fs.existsSync(path.join(from, 'db'))).toBe(false);
    expect(savedStartup(m).dataDir).toBe(to);
    expect(await episodeCount(engine)).toBe(before);
    expect((await engine.call('health', {})).home).toBe(path.join(to, 'db'));
    const hits = await engine.call('search', { ownerId: OWNER, query: 'glacier Zermatt' });
    expect(hits.results.length).toBeGreaterThan(0);

    await engine.close();
    open = [];
    const again = await start(m);
    expect((await again.call('getStartup', {})).dataDir).toBe(to);
    expect(await episodeCount(again)).toBe(before);

    // Back to the default folder, where (on macOS and Windows) the app keeps its own profile files too.
    fs.writeFileSync(path.join(from, 'Preferences'), '{}');
    expect(await again.call('inspectFolder', { folder: from })).toMatchObject({ holdsMemory: false, cannotMove: null });
    await again.call('setDataFolder', { folder: from, mode: 'move' });
    expect(savedStartup(m).dataDir).toBeUndefined();
    expect(await episodeCount(again)).toBe(before);
    expect(fs.readFileSync(path.join(from, 'Preferences'), 'utf8')).toBe('{}');
    expect(fs.existsSync(path.join(to, 'db'))).toBe(false);
  });

  it('opens another folder: an empty one starts a new memory, and switching back finds the first', async () => {
    const m = machine();
    const engine = await start(m);
    await importTwoDays(engine);
    const first = (await engine.call('getStartup', {})).dataDir!;
    const other = path.join(m.root, 'fresh');

    await engine.call('setDataFolder', { folder: other, mode: 'open' });
    expect(await episodeCount(engine)).toBe(0);
    expect(fs.existsSync(path.join(first, 'db'))).toBe(true);

    const back = await engine.call('inspectFolder', { folder: first });
    expect(back).toMatchObject({ holdsMemory: true, cannotOpen: null });
    expect(back.cannotMove).toBe('not-empty');
    await engine.call('setDataFolder', { folder: first, mode: 'open' });
    expect(await episodeCount(engine)).toBeGreaterThan(0);
    // Back in the default folder: Settings keeps no folder of its own.
    expect(savedStartup(m).dataDir).toBeUndefined();
  });

  it('refuses a folder it cannot use and changes nothing', async () => {
    const m = machine();
    const engine = await start(m);
    await importTwoDays(engine);
    const home = (await engine.call('getStartup', {})).dataDir!;
    const busy = path.join(m.root, 'busy');
    fs.mkdirSync(busy);
    fs.writeFileSync(path.join(busy, 'notes.txt'), 'mine');

    await expect(engine.call('setDataFolder', { folder: busy, mode: 'move' })).rejects.toThrow(/is not empty/);
    await expect(engine.call('setDataFolder', { folder: busy, mode: 'open' })).rejects.toThrow(/holds other files and no Nemori memory/);
    await expect(engine.call('setDataFolder', { folder: path.join(home, 'inner'), mode: 'move' })).rejects.toThrow(
      /inside the current data folder/,
    );
    await expect(engine.call('setDataFolder', { folder: 'relative/dir', mode: 'move' })).rejects.toThrow(/give a full path/);
    await expect(engine.call('inspectFolder', { folder: 'relative/dir' })).rejects.toThrow(/give a full path/);
    await expect(engine.call('setDataFolder', { folder: home, mode: 'open' })).rejects.toThrow(/already kept in/);
    expect(fs.readdirSync(busy)).toEqual(['notes.txt']);
    expect((await engine.call('getStartup', {})).dataDir).toBe(home);
    expect(await episodeCount(engine)).toBeGreaterThan(0);
  });

  it('cannot change a folder that --home or NEMORI_HOME set for this run', async () => {
    const m = machine();
    const home = path.join(m.root, 'pinned');
    const engine = await openAppEngine({ startup: resolveStartup(undefined, { ...m.env, NEMORI_HOME: home }), env: m.env, warn: () => {} });
    open.push(engine);
    expect(await engine.call('getStartup', {})).toMatchObject({ dataDir: home, dataDirPinnedBy: 'NEMORI_HOME' });
    await expect(engine.call('setDataFolder', { folder: path.join(m.root, 'x'), mode: 'move' })).rejects.toThrow(/set by NEMORI_HOME/);
  });
});

describe('the embedding model, chosen in Settings', () => {
  it('switches to a model that loads, says how many episodes still need its vectors, and keeps the current one when another cannot load', async () => {
    const m = machine();
    const engine = await start(m);
    // The default model is not on this machine and cannot be downloaded: keyword search only.
    expect((await engine.call('health', {})).embedding.available).toBe(false);
    await importTwoDays(engine);
    const episodes = await episodeCount(engine);
    const view = await engine.call('getStartup', {});
    expect(view.modelChoices.find((c) => c.recommended)?.id).toBe('Xenova/multilingual-e5-small');

    const switched = await engine.call('setEmbeddingModel', { modelId: 'nemori-tiny' });
    expect(switched.startup.embeddingModel).toBe('nemori-tiny');
    expect(switched.unembedded).toBe(episodes);
    expect(savedStartup(m).embeddingModel).toBe('nemori-tiny');
    expect((await engine.call('health', {})).embedding).toMatchObject({ available: true, modelId: 'nemori-tiny' });
    const rebuilt = await engine.call('rebuildIndexes', { ownerId: OWNER });
    expect(rebuilt.embedded).toBe(episodes);

    await expect(engine.call('setEmbeddingModel', { modelId: 'Xenova/multilingual-e5-base' })).rejects.toThrow(
      /could not be used .*Nemori keeps nemori-tiny/,
    );
    expect(savedStartup(m).embeddingModel).toBe('nemori-tiny');
    expect((await engine.call('health', {})).embedding).toMatchObject({ available: true, modelId: 'nemori-tiny' });
    const hits = await engine.call('search', { ownerId: OWNER, query: 'glacier Zermatt', mode: 'vector' });
    expect(hits.results.length).toBeGreaterThan(0);
  });
});

describe('restoring a backup', () => {
  it('puts the memory back as it was at the backup, after saving the present one so the restore can be undone', async () => {
    const m = machine();
    const engine = await start(m);
    await importTwoDays(engine);
    const atBackup = await episodeCount(engine);
    const backup = await engine.call('backup', {});
    await engine.call('importFiles', {
      ownerId: OWNER,
      paths: [path.join(import.meta.dirname, '..', 'e2e', 'fixtures', 'spring-week.json')],
    });
    const later = await episodeCount(engine);
    expect(later).toBeGreaterThan(atBackup);

    const restored = await engine.call('restoreBackup', { file: backup.file });
    expect(restored.restored).toBe(backup.file);
    expect(await episodeCount(engine)).toBe(atBackup);
    const listed = await engine.call('listBackups', {});
    expect(listed.backups.map((b) => b.file)).toEqual(expect.arrayContaining([backup.file, restored.safetyBackup]));

    await engine.call('restoreBackup', { file: restored.safetyBackup });
    expect(await episodeCount(engine)).toBe(later);
  });

  it('refuses a file that is not a Nemori backup, before closing anything', async () => {
    const m = machine();
    const engine = await start(m);
    await importTwoDays(engine);
    const junk = path.join(m.root, 'junk.tar.gz');
    fs.writeFileSync(junk, 'not a backup');
    await expect(engine.call('restoreBackup', { file: junk })).rejects.toThrow(/is not a Nemori backup/);
    await expect(engine.call('restoreBackup', { file: path.join(m.root, 'missing.tar.gz') })).rejects.toThrow(/cannot read the backup/);
    expect(await episodeCount(engine)).toBeGreaterThan(0);
    expect((await engine.call('listBackups', {})).backups).toEqual([]);
  });
});

describe('an engine opened on a fixed folder (CLI, tests)', () => {
  it('answers what it is on and refuses to move, switch model or restore', async () => {
    const engine = await openMemoryEngine();
    try {
      expect(await engine.call('getStartup', {})).toMatchObject({ dataDir: null, canChange: false });
      await expect(engine.call('setDataFolder', { folder: '/tmp/x', mode: 'move' })).rejects.toThrow(
        /needs the desktop app or `nemori web`/,
      );
      await expect(engine.call('restoreBackup', { file: '/tmp/x.tar.gz' })).rejects.toThrow(/needs the desktop app/);
    } finally {
      await engine.close();
    }
  });
});
