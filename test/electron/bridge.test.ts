import { describe, expect, it } from 'vitest';
import { BRIDGE_CHANNELS, createBridge } from '../../electron/shared/bridge';

describe('window.nemori bridge', () => {
  it('exposes exactly the contract operations, each on its own channel', async () => {
    const calls: [string, unknown][] = [];
    const bridge = createBridge(async (channel, input) => {
      calls.push([channel, input]);
      return '0.1.0';
    });
    expect(Object.keys(bridge).sort()).toEqual(Object.keys(BRIDGE_CHANNELS).sort());
    await expect(bridge.version()).resolves.toBe('0.1.0');
    expect(calls).toEqual([['app:version', undefined]]);
  });

  it('cannot be extended by page scripts', () => {
    const bridge = createBridge(async () => undefined);
    expect(Object.isFrozen(bridge)).toBe(true);
  });

  it('passes transport failures to the caller', async () => {
    const bridge = createBridge(async () => {
      throw new Error('engine unavailable');
    });
    await expect(bridge.version()).rejects.toThrow('engine unavailable');
  });
});
