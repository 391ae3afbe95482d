/**
 * `nemori web` as a person runs it: prints the link with its token, serves the journal and the API
 * on 127.0.0.1, and on Ctrl-C closes the database (the data folder's lock is released). On a first
 * start the tab follows the embedding model's download (from a local mirror) over the event stream.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { describe, expect, it } from 'vitest';
import type { EngineEvent } from '../../core/api/wire.js';
import { ensureRendererBuilt } from '../e2e/harness.js';
import { tempDir } from '../helpers/engine.js';
import { mirrorEnv, startModelMirror, tinyModelBytes, tinyOnnxBytes } from '../helpers/model-mirror.js';
import { callOp, listen, request, until } from './client.js';

const bin = path.join(import.meta.dirname, '..', '..', 'bin', 'nemori.mjs');

/** `nemori web` on `home`, with `env` over this process's own (but no model folder or home of this machine). */
function startWeb(home: string, env: NodeJS.ProcessEnv) {
  const child = spawn(process.execPath, [bin, '--home', home, '--json', 'web', '--no-open'], {
    env: { ...process.env, ...env, NEMORI_MODEL_DIR: '', NEMORI_HOME: '' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  /** The first line it prints: its link. */
  const link = async () => {
    const first = await new Promise<string>((resolve, reject) => {
      createInterface({ input: child.stdout }).once('line', resolve);
      child.once('exit', () => reject(new Error('nemori web exited before printing its link')));
    });
    return JSON.parse(first) as { url: string; port: number };
  };
  return { child, exited, link };
}

describe('nemori web', { timeout: 180_000 }, () => {
  it('prints its link, serves the journal and the API, and closes the store on Ctrl-C', async () => {
    ensureRendererBuilt();
    const home = tempDir('nemori-web-');
    const { child, exited, link } = startWeb(home, { NEMORI_ALLOW_DOWNLOAD: '0' });
    try {
      const { url, port } = await link();
      expect(url).toMatch(new RegExp(`^http://127\\.0\\.0\\.1:${port}/#token=[\\w-]+$`));
      const token = url.split('#token=')[1]!;

      const page = await request(port, { path: '/' });
      expect(page.status).toBe(200);
      expect(page.text).toContain('<div id="root">');
      const health = await callOp(port, token, 'health', {});
      expect(health.json()).toMatchObject({ ok: true, home: path.join(home, 'db') });
      expect(fs.existsSync(path.join(home, 'db', 'nemori.lock'))).toBe(true);
    } finally {
      child.kill('SIGINT');
    }
    expect(await exited).toBe(0);
    expect(fs.existsSync(path.join(home, 'db', 'nemori.lock'))).toBe(false);
  });

  it('on a first start prints its link while the model downloads, and the tab follows the download until the engine answers', async () => {
    ensureRendererBuilt();
    const total = await tinyModelBytes();
    const mirror = await startModelMirror({ holdAt: 300_000 });
    const held = total - (await tinyOnnxBytes()) + 300_000;
    const home = tempDir('nemori-web-first-');
    const { child, exited, link } = startWeb(home, mirrorEnv(mirror));
    try {
      // The mirror still holds the model file: the link came before the engine could open.
      const { url, port } = await link();
      const token = url.split('#token=')[1]!;
      const feed = await listen(port, token);
      const model = () => feed.events.filter((e) => (e as EngineEvent).type === 'model') as (EngineEvent & { type: 'model' })[];
      await until(() => model().some((e) => e.state === 'downloading' && e.loaded === held));
      expect(model().find((e) => e.state === 'downloading' && e.loaded === held)).toEqual({
        type: 'model',
        state: 'downloading',
        modelId: 'nemori-tiny',
        loaded: held,
        total,
        file: 'onnx/model.onnx',
      });
      // A call made meanwhile waits for the engine.
      const health = callOp(port, token, 'health', {});

      mirror.release();
      await until(() => model().some((e) => e.state === 'ready'));
      expect(
        model()
          .slice(-2)
          .map((e) => e.state),
      ).toEqual(['loading', 'ready']);
      expect((await health).json()).toMatchObject({ ok: true, embedding: { available: true, modelId: 'nemori-tiny' } });
      feed.close();
    } finally {
      child.kill('SIGINT');
      await mirror.close();
    }
    expect(await exited).toBe(0);
  });
});
