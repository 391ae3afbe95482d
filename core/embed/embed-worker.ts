/**
 * The model's worker thread (started by model-worker.ts): loads the model named in `workerData`, says
 * `loaded` (or why it failed), then embeds each request in turn and sends the vectors back, their
 * buffers transferred rather than copied.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { describeCause, isEmbedError } from './errors.js';
import { embedTexts, loadModel, type LoadedModel } from './loaded-model.js';
import { EmbedRequestSchema, WorkerStartSchema, type Failure, type WorkerReply } from './worker-protocol.js';

const port = parentPort;
if (port === null) throw new Error('embed-worker runs as a worker thread (see model-worker.ts)');

function post(reply: WorkerReply, transfer: ArrayBuffer[] = []): void {
  port!.postMessage(reply, transfer);
}

function failureOf(error: unknown): Failure {
  return { code: isEmbedError(error) ? error.code : null, message: describeCause(error) };
}

const { source, progress } = WorkerStartSchema.parse(workerData);
let model: LoadedModel | undefined;
try {
  model = await loadModel(source, progress ? (p) => post({ type: 'progress', progress: p }) : undefined);
  post({ type: 'loaded', dimensions: model.dimensions });
} catch (error) {
  post({ type: 'failed', id: null, error: failureOf(error) });
}

if (model !== undefined) {
  const loaded = model;
  // One request at a time, in the order they came: the model runs one batch at a time anyway.
  let queue = Promise.resolve();
  port.on('message', (message: unknown) => {
    const request = EmbedRequestSchema.parse(message);
    queue = queue.then(async () => {
      try {
        const vectors = await embedTexts(loaded, request.texts, request.batchSize);
        post(
          { type: 'vectors', id: request.id, vectors },
          vectors.map((v) => v.buffer as ArrayBuffer),
        );
      } catch (error) {
        post({ type: 'failed', id: request.id, error: failureOf(error) });
      }
    });
  });
}
