/**
 * The HTTP bridge transport (a browser tab on `nemori web`, the e2e tests): one POST per call,
 * Server-Sent Events for engine events, and file upload for imports. Same results as IPC.
 */
import type { CallResult, EngineEvent, OperationName, OpOutput, WireError } from './types';

const unreachable = (detail: string): WireError => ({
  code: 'ENGINE_UNAVAILABLE',
  message: `Nemori is not answering (${detail}). Is \`nemori web\` still running?`,
});

async function toResult<T>(response: Response): Promise<{ ok: true; value: T } | { ok: false; error: WireError }> {
  const body = (await response.json().catch(() => null)) as { error?: WireError } | null;
  if (response.ok) return { ok: true, value: body as T };
  return { ok: false, error: body?.error ?? { code: 'INTERNAL', message: `the bridge answered HTTP ${response.status}` } };
}

export function httpTransport(token: string) {
  const auth = { Authorization: `Bearer ${token}` };
  const listeners = new Set<(e: EngineEvent) => void>();
  let source: EventSource | null = null;

  function openEvents(): void {
    if (source) return;
    source = new EventSource(`/api/events?token=${encodeURIComponent(token)}`);
    source.onmessage = (message) => {
      const event = JSON.parse(message.data as string) as EngineEvent;
      for (const listener of listeners) listener(event);
    };
  }

  return {
    kind: 'web' as const,

    async call<K extends OperationName>(operation: K, input: unknown): Promise<CallResult<K>> {
      try {
        const response = await fetch(`/api/call/${operation}`, {
          method: 'POST',
          headers: { ...auth, 'Content-Type': 'application/json' },
          body: JSON.stringify(input ?? {}),
        });
        return await toResult<OpOutput<K>>(response);
      } catch (e) {
        return { ok: false, error: unreachable((e as Error).message) };
      }
    },

    onEvent(listener: (e: EngineEvent) => void): () => void {
      listeners.add(listener);
      openEvents();
      return () => listeners.delete(listener);
    },

    /** Sends one file into an import batch (streamed by the browser; no size limit of ours). */
    async upload(batch: string, file: File): Promise<{ ok: true } | { ok: false; error: WireError }> {
      try {
        const query = new URLSearchParams({ batch, name: file.name });
        const response = await fetch(`/api/import/upload?${query}`, { method: 'POST', headers: auth, body: file });
        const result = await toResult<unknown>(response);
        return result.ok ? { ok: true } : result;
      } catch (e) {
        return { ok: false, error: unreachable((e as Error).message) };
      }
    },

    /** Imports the files uploaded into `batch` (then the bridge deletes them; a dry run keeps them). */
    async importBatch(batch: string, options: object): Promise<CallResult<'importFiles'>> {
      try {
        const response = await fetch('/api/import', {
          method: 'POST',
          headers: { ...auth, 'Content-Type': 'application/json' },
          body: JSON.stringify({ ...options, batch }),
        });
        return await toResult<OpOutput<'importFiles'>>(response);
      } catch (e) {
        return { ok: false, error: unreachable((e as Error).message) };
      }
    },
  };
}
export type HttpTransport = ReturnType<typeof httpTransport>;
