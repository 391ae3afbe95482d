import { describe, expect, it } from 'vitest';
import { createShutdown } from '../../electron/main/shutdown';

describe('closing on quit', () => {
  it('closes resources last-opened-first, once, however many exit paths fire', async () => {
    const closed: string[] = [];
    const shutdown = createShutdown();
    shutdown.add('store', () => void closed.push('store'));
    shutdown.add('engine', async () => void closed.push('engine'));

    const first = shutdown.run();
    const second = shutdown.run(); // e.g. before-quit then will-quit
    expect(second).toBe(first);
    expect(shutdown.state).toBe('closing');
    await first;
    await shutdown.run();

    expect(closed).toEqual(['engine', 'store']);
    expect(shutdown.state).toBe('closed');
  });

  it('keeps closing the rest when one resource fails or hangs', async () => {
    const errors: string[] = [];
    const closed: string[] = [];
    const shutdown = createShutdown({ timeoutMs: 50, onError: (name) => errors.push(name) });
    shutdown.add('store', () => void closed.push('store'));
    shutdown.add('hung', () => new Promise<void>(() => {}));
    shutdown.add('broken', () => {
      throw new Error('boom');
    });

    await expect(shutdown.run()).resolves.toBeUndefined();
    expect(errors).toEqual(['broken', 'hung']);
    expect(closed).toEqual(['store']);
  });

  it('refuses new resources once closing has started', async () => {
    const shutdown = createShutdown();
    await shutdown.run();
    expect(() => shutdown.add('late', () => {})).toThrow(/already started/);
  });
});
