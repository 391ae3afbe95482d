/**
 * What the engine is busy with, from its events: calls in flight and the latest progress of each.
 * The status line shows it; the import screen follows its own call's progress.
 */
import { create } from 'zustand';
import { onEvent } from '../api/client';
import type { EngineEvent, OperationName } from '../api/types';

export interface RunningCall {
  callId: string;
  operation: OperationName;
  progress: { phase: string; done: number; total: number; detail?: string | undefined } | null;
}

interface EventsState {
  running: Record<string, RunningCall>;
  /** The last event seen; components that wait for "their" call subscribe to this. */
  last: EngineEvent | null;
}

export const useEventsStore = create<EventsState>()(() => ({ running: {}, last: null }));

/** Calls the person would not think of as "work in progress" (reading, searching) stay out of the status line. */
const QUIET: ReadonlySet<string> = new Set(['listEpisodes', 'getEpisode', 'search', 'stats', 'health', 'getLlmSettings', 'getEngineSettings', 'knowledgeCapacity', 'cancelCall']);

export function startEventFeed(): () => void {
  return onEvent((e) => {
    useEventsStore.setState((s) => {
      const running = { ...s.running };
      if (e.type === 'call') {
        if (e.state === 'started' && !QUIET.has(e.operation)) running[e.callId] = { callId: e.callId, operation: e.operation, progress: null };
        else delete running[e.callId];
      } else if (running[e.callId]) {
        running[e.callId] = { ...running[e.callId]!, progress: { phase: e.phase, done: e.done, total: e.total, detail: e.detail } };
      }
      return { running, last: e };
    });
  });
}
