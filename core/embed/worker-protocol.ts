/**
 * What the engine's thread and the model's worker thread (embed-worker.ts) say to each other. Both
 * sides parse what they receive: a message crosses a thread by structured clone, without types.
 */
import { z } from 'zod';
import type { EmbedErrorCode } from './errors.js';
import type { ModelSource } from './model-source.js';

const EMBED_ERROR_CODES = [
  'MODEL_UNAVAILABLE',
  'MODEL_CHECKSUM_MISMATCH',
  'MODEL_LOAD_FAILED',
  'INVALID_OPTIONS',
  'EMBEDDER_DISPOSED',
  'EMBEDDER_CRASHED',
] as const satisfies readonly EmbedErrorCode[];

/** The model to load, given to the worker when it starts. */
export const WorkerStartSchema = z.object({
  // Made by resolveModelSource on the other side of the thread: only its shape is checked here.
  source: z.custom<ModelSource>(
    (v) => typeof v === 'object' && v !== null && typeof (v as { modelId?: unknown }).modelId === 'string',
    'a model source',
  ),
  /** Whether load progress is wanted (transformers.js reports it only when asked). */
  progress: z.boolean(),
});
export type WorkerStart = z.infer<typeof WorkerStartSchema>;

/**
 * What the engine's thread asks: texts to embed, or to end. The thread ends itself between two model
 * runs: ended from outside while ONNX Runtime runs, the native side finishes the run, fails to hand its
 * result to a torn-down thread and aborts the whole process.
 */
export const WorkerRequestSchema = z.discriminatedUnion('type', [
  z.object({
    type: z.literal('embed'),
    id: z.number().int(),
    /** Prefixed already. */
    texts: z.array(z.string()).readonly(),
    batchSize: z.number().int().min(1),
  }),
  z.object({ type: z.literal('end') }),
]);
export type WorkerRequest = z.infer<typeof WorkerRequestSchema>;

const ModelProgressSchema = z.discriminatedUnion('status', [
  z.object({ status: z.literal('start'), source: z.enum(['dir', 'cache', 'remote']), modelId: z.string() }),
  z.object({ status: z.enum(['initiate', 'download', 'done']), file: z.string() }),
  z.object({ status: z.literal('progress'), file: z.string(), loaded: z.number(), total: z.number(), progress: z.number() }),
  z.object({ status: z.literal('total'), loaded: z.number(), total: z.number(), progress: z.number() }),
  z.object({ status: z.literal('ready') }),
]);
/**
 * Download/load progress, decoupled from transformers.js' own event types. `start` comes first and
 * says where the model comes from: only a `remote` source downloads (transformers.js reports reading
 * local files with the same `download`/`progress` events). `progress` is 0–100.
 */
export type ModelProgress = z.infer<typeof ModelProgressSchema>;

const FailureSchema = z.object({
  /** Null for an error that is not an EmbedError (passed on as a plain Error with its message). */
  code: z.enum(EMBED_ERROR_CODES).nullable(),
  message: z.string(),
});
export type Failure = z.infer<typeof FailureSchema>;

export const WorkerReplySchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('progress'), progress: ModelProgressSchema }),
  z.object({ type: z.literal('loaded'), dimensions: z.number().int().positive() }),
  /** `id` null: the load failed. */
  z.object({ type: z.literal('failed'), id: z.number().int().nullable(), error: FailureSchema }),
  z.object({
    type: z.literal('vectors'),
    id: z.number().int(),
    vectors: z.array(z.custom<Float32Array>((v) => v instanceof Float32Array, 'a Float32Array')),
  }),
]);
export type WorkerReply = z.infer<typeof WorkerReplySchema>;
