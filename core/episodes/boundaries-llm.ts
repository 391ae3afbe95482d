import { z } from 'zod';
import type { StoredMessage } from '../domain/conversation.js';
import { isLlmError, type Llm, type LlmError } from '../llm/llm.js';
import { renderPrompt } from '../llm/prompts.js';
import { localStamp, messageText, shorten } from '../text/message-text.js';
import type { LlmEpisodeConfig } from '../context/llm-episodes-config.js';
import { splitByTimeGap } from './segment.js';

/**
 * LLM boundary detection, batched. The Nemori design shows the model the messages buffered
 * in the current episode plus the newest one, with the time gap, and asks whether the topic or intent
 * changed. Asking that once per message would make a 1,000-message import a thousand requests, so the
 * model sees a window of messages and answers with every index where a new episode starts: the same
 * question, asked for each message of the window in one reply. The last episode of a window is still
 * open (its end may lie beyond the window), so its messages are shown again at the head of the next one.
 */

/** Decisions of one build run: once the endpoint fails, nothing more is asked of it in that run. */
export interface BuildSession {
  down: LlmError | null;
  /** The most recent failure, endpoint or reply, for the report. */
  lastError: LlmError | null;
  /** LLM calls started and calls that failed (after their retries and repair), for reports and benchmarks. */
  calls: number;
  failures: number;
}

export function newSession(): BuildSession {
  return { down: null, lastError: null, calls: 0, failures: 0 };
}

export function noteFailure(session: BuildSession, e: LlmError): void {
  session.failures++;
  session.lastError = e;
  // An endpoint that failed after its retries will not answer the next call either: stop asking.
  if (e.endpointFailed) session.down ??= e;
}

/** A run of messages and whether the LLM decided its boundaries (false: the heuristic must). */
export interface Span {
  messages: StoredMessage[];
  byLlm: boolean;
}

export function formatGap(ms: number): string {
  const min = Math.round(ms / 60_000);
  if (min < 1) return '<1 min';
  if (min < 60) return `${min} min`;
  if (min < 48 * 60) return `${Math.floor(min / 60)} h ${min % 60} min`;
  return `${Math.round(min / 1440)} days`;
}

function boundaryReply(last: number) {
  return z.object({
    boundaries: z.array(z.coerce.number().int()).superRefine((xs, ctx) => {
      const bad = xs.filter((x) => x < 0 || x > last);
      if (bad.length) ctx.addIssue({ code: 'custom', message: `indexes ${bad.join(', ')} are outside 1..${last}` });
    }),
    // Reasons are for people reading the log; a malformed one is not worth a repair round.
    reasons: z.record(z.string(), z.string()).optional().catch(undefined),
  });
}

/** Picks the messages of the next window: at most `boundaryWindow` of them and about `boundaryWindowChars` of text. */
function windowEnd(block: readonly StoredMessage[], start: number, carried: number, c: LlmEpisodeConfig): number {
  let chars = 0;
  let end = start;
  while (end < block.length && end - start < c.boundaryWindow) {
    chars += Math.min(messageText(block[end]!).length, c.boundaryMessageChars) + 40;
    // Always at least one message beyond the carried ones, or the request could decide nothing new.
    if (end - start >= Math.max(2, carried + 1) && chars > c.boundaryWindowChars) break;
    end++;
  }
  return end;
}

/** Asks for the episode starts inside one window; returns window-relative indexes ≥ max(1, carried), ascending. */
export async function askBoundaries(
  llm: Llm,
  ownerId: string,
  window: readonly StoredMessage[],
  previous: StoredMessage | undefined,
  carried: number,
  c: LlmEpisodeConfig,
  session: BuildSession,
): Promise<number[]> {
  const lines = window.map((m, i) => {
    const before = i === 0 ? previous : window[i - 1];
    const gap = before ? `+${formatGap(m.sentAt.getTime() - before.sentAt.getTime())}` : 'start';
    return `[${i}] ${localStamp(m)} (${gap}) ${m.speaker}: ${shorten(messageText(m), c.boundaryMessageChars)}`;
  });
  const last = window.length - 1;
  const prompt = renderPrompt('episode-boundaries', {
    count: window.length,
    last,
    messages: lines.join('\n'),
    carried:
      carried > 0
        ? `Messages [0] to [${carried - 1}] were already judged to form one episode that is still going on; decide where new episodes start from [${carried}] on (a boundary at [${carried}] closes that episode).`
        : '',
  });
  session.calls++;
  const r = await llm.complete({
    operation: 'episode.boundaries',
    ownerId,
    messages: [
      { role: 'system', content: 'You segment conversations into episodes for a personal memory app. You answer with strict JSON only.' },
      { role: 'user', content: prompt },
    ],
    json: boundaryReply(last),
  });
  const floor = Math.max(1, carried);
  return [...new Set(r.value.boundaries)].filter((x) => x >= floor && x <= last).sort((a, b) => a - b);
}

/**
 * Cuts messages into episode spans, yielding each as soon as it is closed (so an import stores its
 * first episodes long before the last boundary of a big conversation is known). Silences longer than
 * `hardGapMinutes` always cut; inside, the LLM decides window by window. A window the LLM could not
 * answer is yielded with `byLlm: false` for the heuristic to segment; once the endpoint is down, so is
 * everything after it.
 */
export async function* llmSpans(
  llm: Llm,
  ownerId: string,
  messages: readonly StoredMessage[],
  c: LlmEpisodeConfig,
  session: BuildSession,
): AsyncGenerator<Span> {
  for (const block of splitByTimeGap(messages, c.hardGapMinutes)) {
    let start = 0;
    let carried = 0;
    while (start < block.length) {
      if (session.down) {
        yield { messages: block.slice(start), byLlm: false };
        break;
      }
      const end = windowEnd(block, start, carried, c);
      const window = block.slice(start, end);
      const isLast = end === block.length;
      if (window.length === 1) {
        yield { messages: window, byLlm: true };
        break;
      }
      let cuts: number[];
      try {
        cuts = await askBoundaries(llm, ownerId, window, block[start - 1], carried, c, session);
      } catch (e) {
        if (!isLlmError(e)) throw e;
        noteFailure(session, e);
        yield { messages: window, byLlm: false };
        start = end;
        carried = 0;
        continue;
      }
      const starts = [0, ...cuts];
      for (let k = 0; k < starts.length - 1; k++) yield { messages: window.slice(starts[k], starts[k + 1]), byLlm: true };
      const open = starts.at(-1)!;
      if (isLast || open === 0) {
        // The end of the block closes the last episode; a full window without a boundary is an episode
        // at its size cap, closed so the next window starts fresh.
        yield { messages: window.slice(open), byLlm: true };
        start = end;
        carried = 0;
      } else {
        start += open;
        carried = end - start;
      }
    }
  }
}

/** All spans at once (rebuilds, tests). */
export async function llmSegments(
  llm: Llm,
  ownerId: string,
  messages: readonly StoredMessage[],
  c: LlmEpisodeConfig,
  session: BuildSession,
): Promise<Span[]> {
  const out: Span[] = [];
  for await (const span of llmSpans(llm, ownerId, messages, c, session)) out.push(span);
  return out;
}
