/**
 * How processes reach the holder of a data folder (core/engine/holder.ts): the HTTP bridge's own
 * endpoints and token on 127.0.0.1, with a few additions for programs.
 *
 *   GET  /api/ping                 → HolderIdentity { pid, version: { app, schema }, home, startedAt }
 *   POST /api/call/:operation      JSON input → JSON output, as for the journal tab; and, for programs:
 *        Accept: application/x-ndjson   the answer streams, one JSON object per line: progress frames
 *                                       `{"type":"progress","event":{operation, phase, done, total, facts?}}`,
 *                                       then `{"type":"result","ok":true,"value":…}` or
 *                                       `{"type":"result","ok":false,"error":{code, message}}`. A client that
 *                                       hangs up before the result cancels the call.
 *        X-Nemori-Call-Id: ID            names the call, so `cancelCall {callId: ID}` stops it
 *        X-Nemori-Home: <encoded home>   the data folder the call is meant for (encodeURIComponent); a holder
 *                                       that holds another one answers 409 with X-Nemori-Not-Run: 1 — it ran nothing
 * Every request carries `Authorization: Bearer <token>` from the holder file.
 */
import { z } from 'zod';
import type { ProgressFacts } from '../api/wire.js';

export const PING_PATH = '/api/ping';
export const callPath = (operation: string) => `/api/call/${operation}`;
export const NDJSON = 'application/x-ndjson';

export const HOLDER_HEADERS = {
  callId: 'x-nemori-call-id',
  home: 'x-nemori-home',
  notRun: 'x-nemori-not-run',
} as const;

/** A call id a client may choose: short, printable, no separators a log could trip on. */
export const CallIdHeader = z.string().regex(/^[\w.:-]{1,128}$/);

const WireErrorFrame = z.object({ code: z.string(), message: z.string() });

export const StreamFrame = z.union([
  z.object({
    type: z.literal('progress'),
    event: z.object({
      operation: z.string(),
      phase: z.string(),
      done: z.number(),
      total: z.number(),
      facts: z.custom<ProgressFacts>((v) => typeof v === 'object' && v !== null).optional(),
    }),
  }),
  z.object({ type: z.literal('result'), ok: z.literal(true), value: z.unknown() }),
  z.object({ type: z.literal('result'), ok: z.literal(false), error: WireErrorFrame }),
]);
export type StreamFrame = z.infer<typeof StreamFrame>;
