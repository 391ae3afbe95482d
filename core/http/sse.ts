/**
 * Engine events to every open browser tab over Server-Sent Events (`GET /api/events`).
 * A comment line every 20 s notices tabs that went away; events are fire-and-forget (a tab that
 * was closed during an import simply misses them and reads the final result).
 */
import type { ServerResponse } from 'node:http';
import type { EngineEvent } from '../api/wire.js';

export interface EventHub {
  /** `first`: events this tab gets at once (where something already under way stands). */
  attach(res: ServerResponse, extraHeaders: Record<string, string>, first?: readonly EngineEvent[]): void;
  emit(e: EngineEvent): void;
  readonly size: number;
  close(): void;
}

const frame = (e: EngineEvent) => `data: ${JSON.stringify(e)}\n\n`;

export function createEventHub(heartbeatMs = 20_000): EventHub {
  const clients = new Set<ServerResponse>();
  const heartbeat = setInterval(() => {
    for (const res of clients) res.write(': keep-alive\n\n');
  }, heartbeatMs);
  heartbeat.unref();

  return {
    attach(res, extraHeaders, first = []) {
      res.writeHead(200, {
        ...extraHeaders,
        'Content-Type': 'text/event-stream; charset=utf-8',
        'Cache-Control': 'no-store',
        Connection: 'keep-alive',
      });
      // Tells EventSource how long to wait before reconnecting after a drop.
      res.write('retry: 2000\n\n');
      for (const e of first) res.write(frame(e));
      clients.add(res);
      res.on('close', () => clients.delete(res));
    },
    emit(e) {
      const data = frame(e);
      for (const res of clients) res.write(data);
    },
    get size() {
      return clients.size;
    },
    close() {
      clearInterval(heartbeat);
      for (const res of clients) res.end();
      clients.clear();
    },
  };
}
