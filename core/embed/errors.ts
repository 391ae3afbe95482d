/**
 * Errors from the embedding layer carry a stable code (for the CLI, the health command
 * and the UI to branch on) and a message a person can act on.
 */
export type EmbedErrorCode =
  /** The model is not on disk and cannot be fetched (remote off, no data dir, network failure). */
  | 'MODEL_UNAVAILABLE'
  /** A model file does not match its expected or recorded sha256. */
  | 'MODEL_CHECKSUM_MISMATCH'
  /** The files are there but transformers.js / ONNX Runtime could not use them. */
  | 'MODEL_LOAD_FAILED'
  /** Options failed validation. */
  | 'INVALID_OPTIONS'
  /** `embed()` was called after `dispose()`. */
  | 'EMBEDDER_DISPOSED'
  /** The model's worker thread stopped (an uncaught error, out of memory): open the embedder again. */
  | 'EMBEDDER_CRASHED';

export class EmbedError extends Error {
  override readonly name = 'EmbedError';

  constructor(
    readonly code: EmbedErrorCode,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

export function isEmbedError(error: unknown, code?: EmbedErrorCode): error is EmbedError {
  return error instanceof EmbedError && (code === undefined || error.code === code);
}

/** Message of an unknown thrown value, for wrapping library errors into ours. */
export function describeCause(cause: unknown): string {
  return cause instanceof Error ? cause.message : String(cause);
}
