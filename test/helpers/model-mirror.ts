/**
 * A Hub-compatible mirror on 127.0.0.1 serving the tiny model (`/<model>/resolve/main/<file>`), as
 * NEMORI_HF_MIRROR would point to. With `holdAt`, it
 * sends that many bytes of onnx/model.onnx and then waits for `release()`: a test sees a first-run
 * download in the middle, however fast the machine. Never the network.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { readFile } from 'node:fs/promises';
import { join, normalize } from 'node:path';
import { getModelSpec, TINY_MODEL_ID } from '../../core/embed/index.js';
import { TINY_MODEL_DIR } from '../fixtures/tiny-model/index.js';

export const TINY_ONNX = join('onnx', 'model.onnx');

export interface ModelMirror {
  /** The mirror's root, for NEMORI_HF_MIRROR. */
  readonly url: string;
  readonly requests: string[];
  /** While true, model.onnx is served with one byte flipped (a corrupted download). */
  corruptOnnx: boolean;
  /** Lets a held model.onnx finish. */
  release(): void;
  close(): Promise<void>;
}

/** The environment `openDefaultEngine` reads: the tiny model, downloaded from this mirror. */
export function mirrorEnv(mirror: ModelMirror): NodeJS.ProcessEnv {
  return { NEMORI_HF_MIRROR: mirror.url, NEMORI_EMBEDDING_MODEL: TINY_MODEL_ID, NEMORI_ALLOW_DOWNLOAD: '1' };
}

export async function startModelMirror(o: { holdAt?: number } = {}): Promise<ModelMirror> {
  const requests: string[] = [];
  let release!: () => void;
  const released = new Promise<void>((r) => (release = r));
  const mirror = { corruptOnnx: false };
  const server = createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://mirror').pathname;
    requests.push(path);
    const match = /^\/nemori-tiny\/resolve\/main\/(.+)$/.exec(path);
    const file = match?.[1] !== undefined ? normalize(decodeURIComponent(match[1])) : undefined;
    if (file === undefined || file.startsWith('..')) {
      res.writeHead(404).end();
      return;
    }
    readFile(join(TINY_MODEL_DIR, file)).then(
      async (body) => {
        if (mirror.corruptOnnx && file === TINY_ONNX) {
          const at = body.length >> 1;
          body.writeUInt8(body.readUInt8(at) ^ 0xff, at);
        }
        res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': body.length });
        if (req.method === 'HEAD') return void res.end();
        if (o.holdAt !== undefined && file === TINY_ONNX) {
          res.write(body.subarray(0, o.holdAt));
          await released;
          res.end(body.subarray(o.holdAt));
        } else {
          res.end(body);
        }
      },
      () => res.writeHead(404).end(),
    );
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  return Object.assign(mirror, {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`,
    requests,
    release,
    async close() {
      release();
      await new Promise<void>((done) => {
        server.close(() => done());
        server.closeAllConnections();
      });
    },
  });
}

/** Bytes of the tiny model's files (what a download's `total` adds up to). */
export async function tinyModelBytes(): Promise<number> {
  const files = getModelSpec(TINY_MODEL_ID)?.files ?? [];
  const sizes = await Promise.all(files.map(async (f) => (await readFile(join(TINY_MODEL_DIR, f))).length));
  return sizes.reduce((a, b) => a + b, 0);
}

export async function tinyOnnxBytes(): Promise<number> {
  return (await readFile(join(TINY_MODEL_DIR, TINY_ONNX))).length;
}
