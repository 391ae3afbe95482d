/**
 * What the engine is busy with, from its events: calls in flight and the latest progress of each,
 * and, while the engine opens, the embedding model's state (its first-run download).
 * The status line shows it; the import screen follows its own call's progress.
 */
import { create } from 'zustand';
import { onEvent } from '../api/client';
import { applyEvent, type EventsState } from './event-state';

export { modelNotice, type EventsState, type ModelNotice, type RunningCall } from './event-state';

export const useEventsStore = create<EventsState>()(() => ({ running: {}, last: null, model: null }));

export function startEventFeed(): () => void {
  return onEvent((e) => useEventsStore.setState((s) => applyEvent(s, e)));
}
