/**
 * Errors that reach a person carry a code a program can branch on and a message a person can act on.
 * Stack traces stay in logs; the UI and CLI only ever show `message`.
 */
export type ErrorCode =
  'INVALID_INPUT' | 'IMPORT_PARSE' | 'NOT_FOUND' | 'STORE_LOCKED' | 'STORE_MIGRATION' | 'MODEL_UNAVAILABLE' | 'MODEL_CHECKSUM_MISMATCH';

export class NemoriError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly details?: Record<string, unknown>,
  ) {
    super(message);
    this.name = 'NemoriError';
  }
}

export function isNemoriError(e: unknown): e is NemoriError {
  return e instanceof NemoriError;
}
