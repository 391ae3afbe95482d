/**
 * A big import writes its episode vectors without the model's HNSW index and builds the index once at
 * its end (core/episodes/vector-index.ts). Searches meanwhile read every vector; a store an import left
 * without its index (killed) searches the same and has the index again at its next open.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openEmbedder } from '../../core/embed/index.js';
import { openEngine, type Engine } from '../../core/engine/open-engine.js';
import { Store } from '../../core/store/store.js';
import type { VectorSpace } from '../../core/store/vectors.js';
import { tinyModelOptions } from '../fixtures/tiny-model/index.js';
import { manyConversationsFile, newOwner, tempDir } from '../helpers/engine.js';

const home = tempDir();
let engine: Engine;
let space: VectorSpace;

async function open(at = home): Promise<Engine> {
  const embedder = await openEmbedder(tinyModelOptions());
  space = { modelId: embedder.modelId, dimensions: embedder.dimensions };
  return openEngine({ home: at, embedder });
}

beforeAll(async () => {
  engine = await open();
});
afterAll(async () => {
  await engine.close();
});

/** `n` conversations other than manyConversationsFile's (their ids are new). */
function otherConversationsFile(n: number): string {
  const file = manyConversationsFile(n);
  const data = JSON.parse(fs.readFileSync(file, 'utf8')) as { conversations: { id: string; messages: { id: string }[] }[] };
  for (const c of data.conversations) {
    c.id = `other-${c.id}`;
    for (const m of c.messages) m.id = `other-${m.id}`;
  }
  fs.writeFileSync(file, JSON.stringify(data));
  return file;
}

const indexed = () => engine.context.store.read.vectors.indexed(space);

/** The ids of a vector-only search's results, best first. */
async function nearest(ownerId: string, query: string): Promise<string[]> {
  const r = await engine.call('search', { ownerId, query, mode: 'vector', limit: 10 });
  return r.results.map((x) => x.id);
}

/**
 * Imports `file`, and answers, once the import has embedded more than `after` episodes and while it
 * goes on, whether the model's index exists and what a search finds.
 */
async function importWatching(ownerId: string, file: string, after: number) {
  const seen: { during?: Promise<{ indexed: boolean; found: string[] }> } = {};
  const out = await engine.call(
    'importFiles',
    { ownerId, paths: [file], timeZone: 'UTC' },
    {
      onProgress: (p) => {
        if (seen.during || p.phase !== 'embeddings' || p.done <= after) return;
        // Asked at once: queued in the database before the import's next window.
        const index = indexed();
        seen.during = index.then(async (i) => ({ indexed: i, found: await nearest(ownerId, 'message about topic 3') }));
      },
    },
  );
  return { out, during: (await seen.during) ?? null };
}

describe('the vector index during a big import', { timeout: 180_000 }, () => {
  const owner = newOwner('big');

  it('is dropped once an import has written more vectors than the store had, and built at its end', async () => {
    const { out, during } = await importWatching(owner, manyConversationsFile(700), 600);
    expect(out.errors).toEqual([]);
    expect(during).toMatchObject({ indexed: false });
    // Meanwhile a search reads every vector: it still finds the nearest ones.
    expect(during!.found).toHaveLength(10);
    expect(await indexed()).toBe(true);
    expect(await engine.context.store.read.vectors.count(owner, space.modelId)).toBe(700);
  });

  it('stays while an import writes fewer vectors than the store has', async () => {
    const { during } = await importWatching(owner, otherConversationsFile(30), 0);
    expect(during).toMatchObject({ indexed: true });
    expect(await indexed()).toBe(true);
  });

  it('searches without it find the same episodes as with it, and it comes back at the next open', async () => {
    const withIndex = await nearest(owner, 'message about topic 3');
    // What a killed import leaves: its committed episodes and vectors, the index dropped.
    await engine.context.store.transaction((r) => r.vectors.dropIndex(space));
    expect(await indexed()).toBe(false);
    expect(await nearest(owner, 'message about topic 3')).toEqual(withIndex);
    await engine.close();
    engine = await open();
    expect(await indexed()).toBe(true);
    expect(await nearest(owner, 'message about topic 3')).toEqual(withIndex);
  });

  it('a process killed while its import wrote vectors without the index: the store has none until the next open builds it', async () => {
    const killedHome = tempDir();
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', path.join(import.meta.dirname, 'fixtures', 'import-child.ts'), killedHome, manyConversationsFile(700)],
      {
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const exited = new Promise<NodeJS.Signals | null>((resolve) => child.on('exit', (_code, signal) => resolve(signal)));
    const said = await new Promise<string>((resolve, reject) => {
      createInterface({ input: child.stdout }).on('line', (line) => {
        child.kill('SIGKILL');
        resolve(line);
      });
      child.once('exit', () => reject(new Error(`the import ended before it was killed: ${stderr}`)));
    });
    expect(said).toBe('dropped');
    expect(await exited).toBe('SIGKILL');

    // As the kill left it: the vectors of the groups it committed, no index.
    const store = await Store.open({ dir: path.join(killedHome, 'db') });
    const left = await store.read.vectors.count('killed', space.modelId);
    const indexedAfterKill = await store.read.vectors.indexed(space);
    await store.close();
    expect(left).toBeGreaterThan(600);
    expect(indexedAfterKill).toBe(false);

    const reopened = await open(killedHome);
    try {
      expect(await reopened.context.store.read.vectors.indexed(space)).toBe(true);
      const r = await reopened.call('search', { ownerId: 'killed', query: 'message about topic 3', mode: 'vector', limit: 10 });
      expect(r.results).toHaveLength(10);
    } finally {
      await reopened.close();
    }
  });
});
