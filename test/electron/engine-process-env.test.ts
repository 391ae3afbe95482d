/**
 * What the engine's utility process starts with (electron/main/engine-host.ts), through a stand-in for
 * `electron`'s utilityProcess (the binary cannot run here): the app's environment, the engine's own
 * (bin/engine-env.mjs) and, when the keychain gave one, the LLM key.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { engineEnv } from '../../bin/engine-env.mjs';

const forks = vi.hoisted(() => [] as { options: { env?: Record<string, string | undefined> } }[]);
vi.mock('electron', () => ({
  utilityProcess: {
    fork(_entry: string, _args: string[], options: { env?: Record<string, string | undefined> }) {
      forks.push({ options });
      return { postMessage() {}, on() {}, off() {}, once() {}, kill() {} };
    },
  },
}));

const { startEngineHost } = await import('../../electron/main/engine-host');
const { HOST_KEY_ENV } = await import('../../electron/main/key-vault');

afterEach(() => {
  forks.length = 0;
});

describe('the engine process environment', () => {
  it("inherits the app's environment, adds the engine's own, and the LLM key only when there is one", () => {
    process.env.NEMORI_TEST_INHERITED = 'yes';
    try {
      void startEngineHost({ entryPath: '/app/out/main/engine.js' }).ready.catch(() => {});
      void startEngineHost({ entryPath: '/app/out/main/engine.js', llmKey: 'sk-from-keychain' }).ready.catch(() => {});
    } finally {
      delete process.env.NEMORI_TEST_INHERITED;
    }
    const [without, withKey] = forks.map((f) => f.options.env!);
    for (const env of [without!, withKey!]) {
      expect(env.NEMORI_TEST_INHERITED).toBe('yes');
      expect(env).toMatchObject(engineEnv());
    }
    expect(without![HOST_KEY_ENV]).toBeUndefined();
    expect(withKey![HOST_KEY_ENV]).toBe('sk-from-keychain');
    expect(engineEnv('linux')).toEqual({ MALLOC_ARENA_MAX: '1' });
    expect(engineEnv('darwin')).toEqual({});
  });
});
