/**
 * What the engine's events add up to, as pure functions (the store in events.ts holds the result):
 * calls in flight with their latest progress, and the embedding model's state while the engine opens.
 */
import type { EngineEvent, ModelStatus, OperationName } from '../api/types';
import { withStage, type Stages } from './stages';

export interface RunningCall {
  callId: string;
  operation: OperationName;
  stages: Stages;
}

export interface EventsState {
  running: Record<string, RunningCall>;
  /** The last event seen; components that wait for "their" call subscribe to this. */
  last: EngineEvent | null;
  /** The embedding model's latest state; null when no event has said (it was ready before this window listened). */
  model: ModelStatus | null;
}

/** Calls the person would not think of as "work in progress" (reading, searching) stay out of the status line. */
const QUIET: ReadonlySet<string> = new Set([
  'listEpisodes',
  'getEpisode',
  'search',
  'stats',
  'listSources',
  'health',
  'getLlmSettings',
  'getEngineSettings',
  'getWatchedFolder',
  'knowledgeCapacity',
  'cancelCall',
]);

/** One event applied to the state. */
export function applyEvent(s: EventsState, e: EngineEvent): EventsState {
  if (e.type === 'model') {
    const { type: _type, ...model } = e;
    return { ...s, model, last: e };
  }
  const running = { ...s.running };
  if (e.type === 'call') {
    if (e.state === 'started' && !QUIET.has(e.operation)) running[e.callId] = { callId: e.callId, operation: e.operation, stages: {} };
    else delete running[e.callId];
  } else if (running[e.callId]) {
    const call = running[e.callId]!;
    running[e.callId] = { ...call, stages: withStage(call.stages, { phase: e.phase, done: e.done, total: e.total, facts: e.facts }) };
  }
  return { ...s, running, last: e };
}

/** What a window shows of the model: a bar while it downloads or loads, nothing once it is ready (or is not coming). */
export type ModelNotice = { kind: 'downloading'; loaded: number; total: number } | { kind: 'loading' };

export function modelNotice(model: ModelStatus | null): ModelNotice | null {
  if (model?.state === 'downloading') return { kind: 'downloading', loaded: model.loaded, total: model.total };
  if (model?.state === 'loading') return { kind: 'loading' };
  return null;
}
