/**
 * The model's worker thread (started by model-worker.ts): loads the model named in `workerData`, says
 * `loaded` (or why it failed), then embeds each request in turn and sends the vectors back, their
 * buffers transferred rather than copied. Asked to end, it stops before its next model run, releases
 * the model and ends the thread.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { describeCause, EmbedError, isEmbedError } from './errors.js';
import { embedTexts, loadModel, type LoadedModel } from './loaded-model.js';
import { WorkerRequestSchema, WorkerStartSchema, type Failure, type WorkerReply, type WorkerRequest } from './worker-protocol.js';

type EmbedRequest = Extract<WorkerRequest, { type: 'embed' }>;

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
  // One request at a time, in the order they came (the model runs one batch at a time anyway) — except
  // that a request of one batch or less (a search's query, a live turn's episode) runs between the
  // batches of a longer one: a companion's search during an import waits for one batch, not for the
  // import's whole window.
  let queue = Promise.resolve();
  const short: EmbedRequest[] = [];
  const ending = new AbortController();
  const run = async (request: EmbedRequest, between?: () => Promise<void>) => {
    try {
      const vectors = await embedTexts(loaded, request.texts, request.batchSize, ending.signal, between);
      post(
        { type: 'vectors', id: request.id, vectors },
        vectors.map((v) => v.buffer as ArrayBuffer),
      );
    } catch (error) {
      post({ type: 'failed', id: request.id, error: failureOf(error) });
    }
  };
  const runShort = async () => {
    for (let next = short.shift(); next; next = short.shift()) await run(next);
  };
  port.on('message', (message: unknown) => {
    const request = WorkerRequestSchema.parse(message);
    if (request.type === 'end') {
      ending.abort(new EmbedError('EMBEDDER_DISPOSED', `the ${loaded.modelId} embedder was disposed`));
      queue = queue.then(async () => {
        await loaded.pipe.dispose();
        process.exit(0);
      });
      return;
    }
    if (request.texts.length <= request.batchSize) {
      short.push(request);
      queue = queue.then(runShort);
    } else queue = queue.then(() => run(request, runShort));
  });
}
