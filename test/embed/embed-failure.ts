import { isEmbedError, type EmbedError } from '../../core/embed/errors.js';

/** The EmbedError a promise rejects with; anything else (including success) fails the test. */
export async function failure(promise: Promise<unknown>): Promise<EmbedError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!isEmbedError(error)) throw new Error(`expected an EmbedError, got ${String(error)}`);
  return error;
}
