import { describe, expect, it } from 'vitest';
import { BRIDGE_CHANNELS, createBridge, type IpcRendererLike } from '../../core/api/bridge';

type Listener = (event: unknown, ...args: unknown[]) => void;

function fakeIpc(reply: (channel: string, args: unknown[]) => unknown = () => undefined) {
  const invoked: [string, unknown[]][] = [];
  const listeners = new Map<string, Set<Listener>>();
  const ipc: IpcRendererLike = {
    invoke: async (channel, ...args) => {
      invoked.push([channel, args]);
      return reply(channel, args);
    },
    on: (channel, listener) => listeners.set(channel, (listeners.get(channel) ?? new Set()).add(listener)),
    removeListener: (channel, listener) => listeners.get(channel)?.delete(listener),
  };
  const emit = (channel: string, payload: unknown) => {
    for (const l of listeners.get(channel) ?? []) l({ sender: 'the IPC event, with powers' }, payload);
  };
  return { ipc, invoked, emit, listeners };
}

describe('window.nemori', () => {
  it('exposes the contract operations through one call, plus events, the file and folder picker and the version; nothing else', () => {
    const bridge = createBridge(fakeIpc().ipc);
    expect(Object.keys(bridge).sort()).toEqual(['call', 'onEvent', 'pick', 'version']);
    expect(Object.isFrozen(bridge)).toBe(true);
  });

  it('sends each call with its operation name on the one call channel and returns the result envelope', async () => {
    const { ipc, invoked } = fakeIpc(() => ({ ok: true, value: { episodes: [], nextCursor: null } }));
    const bridge = createBridge(ipc);
    await expect(bridge.call('listEpisodes', { limit: 5 })).resolves.toEqual({ ok: true, value: { episodes: [], nextCursor: null } });
    expect(invoked).toEqual([[BRIDGE_CHANNELS.call, ['listEpisodes', { limit: 5 }]]]);
  });

  it('refuses a non-string operation before anything is sent', async () => {
    const { ipc, invoked } = fakeIpc();
    const bridge = createBridge(ipc);
    await expect(bridge.call({ toString: () => 'search' } as never, { query: 'x' } as never)).rejects.toThrow(TypeError);
    expect(invoked).toEqual([]);
  });

  it('hands page scripts the event payload only (never the IPC event), and unsubscribes', () => {
    const { ipc, emit, listeners } = fakeIpc();
    const bridge = createBridge(ipc);
    const seen: unknown[][] = [];
    const off = bridge.onEvent((...args: unknown[]) => seen.push(args));
    emit(BRIDGE_CHANNELS.event, { type: 'call', callId: 'c', operation: 'importFiles', state: 'started' });
    expect(seen).toEqual([[{ type: 'call', callId: 'c', operation: 'importFiles', state: 'started' }]]);
    off();
    expect(listeners.get(BRIDGE_CHANNELS.event)?.size).toBe(0);
  });

  it('passes transport failures to the caller', async () => {
    const bridge = createBridge({
      invoke: async () => {
        throw new Error('main is gone');
      },
      on: () => undefined,
      removeListener: () => undefined,
    });
    await expect(bridge.version()).rejects.toThrow('main is gone');
  });
});
