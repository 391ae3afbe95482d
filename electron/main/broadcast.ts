/**
 * Engine events to every window. The embedding model's latest state is kept and replayed to a window
 * that (re)loads later, so a window opened mid-download shows the download at once instead of waiting
 * for the next byte (the HTTP bridge does the same for a tab that connects).
 */
import type { EngineEvent } from '../../core/api/wire';

/** What a window needs here (Electron's WebContents, or a stand-in in tests). */
export interface EventTarget {
  isDestroyed(): boolean;
  send(event: EngineEvent): void;
}

export interface Broadcaster {
  send(event: EngineEvent): void;
  /** Called when a window has loaded its page. */
  replayTo(target: EventTarget): void;
}

export function createBroadcaster(targets: () => readonly EventTarget[]): Broadcaster {
  let model: EngineEvent | null = null;
  return {
    send(event) {
      if (event.type === 'model') model = event;
      for (const t of targets()) if (!t.isDestroyed()) t.send(event);
    },
    replayTo(target) {
      if (model && !target.isDestroyed()) target.send(model);
    },
  };
}
