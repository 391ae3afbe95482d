/**
 * An error as a person reads it: a headline in their language for what went wrong (from the engine's
 * code), then the engine's own detail, which names what to fix. Every screen shows errors through
 * `describeError`, never a bare `message`. Pure.
 */
import type { LlmErrorCode } from '../../../core/api/wire';
import type { WireErrorCode } from '../api/types';
import type { MessageKey } from '../i18n/en';
import type { Translate } from '../i18n/translate';

/** What a failure said, kept as it came (not as a sentence in one language) until a screen shows it. */
export interface ErrorInfo {
  code: string | null;
  message: string;
}

/** Every code a call or an LLM test can fail with; the compiler keeps this list complete. */
const HEADLINES: Record<WireErrorCode | LlmErrorCode, MessageKey> = {
  INVALID_INPUT: 'error.INVALID_INPUT',
  IMPORT_PARSE: 'error.IMPORT_PARSE',
  NOT_FOUND: 'error.NOT_FOUND',
  STORE_LOCKED: 'error.STORE_LOCKED',
  STORE_MIGRATION: 'error.STORE_MIGRATION',
  MODEL_UNAVAILABLE: 'error.MODEL_UNAVAILABLE',
  MODEL_CHECKSUM_MISMATCH: 'error.MODEL_CHECKSUM_MISMATCH',
  UNKNOWN_OPERATION: 'error.UNKNOWN_OPERATION',
  UNAUTHORIZED: 'error.UNAUTHORIZED',
  // Only a companion's token is refused an operation; the app's own never is: the same headline.
  FORBIDDEN: 'error.UNAUTHORIZED',
  ENGINE_UNAVAILABLE: 'error.ENGINE_UNAVAILABLE',
  INTERNAL: 'error.INTERNAL',
  LLM_UNAVAILABLE: 'error.LLM_UNAVAILABLE',
  LLM_TIMEOUT: 'error.LLM_TIMEOUT',
  LLM_RATE_LIMITED: 'error.LLM_RATE_LIMITED',
  LLM_SERVER: 'error.LLM_SERVER',
  LLM_AUTH: 'error.LLM_AUTH',
  LLM_REQUEST: 'error.LLM_REQUEST',
  LLM_PROTOCOL: 'error.LLM_PROTOCOL',
  LLM_BAD_REPLY: 'error.LLM_BAD_REPLY',
  LLM_ABORTED: 'error.LLM_ABORTED',
};

const isKnown = (code: string): code is keyof typeof HEADLINES => Object.hasOwn(HEADLINES, code);

/** Reads any caught value: an ApiError (code and message), a `{ code, message }` from a result, an Error, anything. */
export function errorInfo(e: unknown): ErrorInfo {
  if (typeof e === 'object' && e !== null && 'message' in e && typeof e.message === 'string') {
    return { code: 'code' in e && typeof e.code === 'string' ? e.code : null, message: e.message };
  }
  return { code: null, message: String(e) };
}

/** "找不到这条记忆：no memory 42": the headline for the code (or “something went wrong”), then the detail. */
export function describeError(e: unknown, t: Translate): string {
  const { code, message } = errorInfo(e);
  const headline = t(code !== null && isKnown(code) ? HEADLINES[code] : 'common.error');
  return message ? t('error.detail', { headline, detail: message }) : headline;
}
