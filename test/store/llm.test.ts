import { describe, expect, it } from 'vitest';
import type { UsageEntry } from '../../core/llm/usage.js';
import { NOW, owners, rolledBack, useStore } from './helpers.js';

const entry = (ownerId: string, o: Partial<UsageEntry> = {}): UsageEntry => ({
  ownerId,
  operation: 'episode.build',
  model: 'qwen',
  attempt: 1,
  repair: false,
  tokensIn: 100,
  tokensOut: 20,
  latencyMs: 300,
  ok: true,
  status: 200,
  errorCode: null,
  error: null,
  at: NOW,
  ...o,
});

describe('LLM usage and settings repository', () => {
  const store = useStore();

  it('totals an owner’s usage by operation and lists the latest calls', async () => {
    const [a] = owners();
    await store().transaction(async (r) => {
      await r.llm.logUsage(entry(a));
      await r.llm.logUsage(
        entry(a, {
          operation: 'semantic.gaps',
          ok: false,
          status: 500,
          errorCode: 'LLM_UNAVAILABLE',
          error: 'boom',
          tokensIn: null,
          tokensOut: null,
          at: new Date(NOW.getTime() + 1000),
        }),
      );
    });
    const u = await store().read.llm.usage(a, { limit: 1 });
    expect(u.totals).toEqual({ requests: 2, ok: 1, failed: 1, tokensIn: 100, tokensOut: 20, latencyMs: 600 });
    expect(u.byOperation.map((x) => [x.operation, x.requests, x.failed])).toEqual([
      ['episode.build', 1, 0],
      ['semantic.gaps', 1, 1],
    ]);
    expect(u.recent).toEqual([
      expect.objectContaining({ ownerId: a, operation: 'semantic.gaps', errorCode: 'LLM_UNAVAILABLE', tokensIn: null }),
    ]);
    expect((await store().read.llm.usage(a, { limit: 10, since: new Date(NOW.getTime() + 500) })).totals.requests).toBe(1);
  });

  it('adds machine-level calls when asked, never another owner’s', async () => {
    const [a, b] = owners();
    await store().transaction(async (r) => {
      await r.llm.logUsage(entry(a));
      await r.llm.logUsage(entry(b, { tokensIn: 5 }));
      await r.llm.logUsage(entry('', { operation: 'test-connection', at: new Date('2030-01-01T00:00:00Z') }));
    });
    expect((await store().read.llm.usage(b, { limit: 10 })).totals).toMatchObject({ requests: 1, tokensIn: 5 });
    const withMachine = await store().read.llm.usage(b, { limit: 10, since: NOW, withMachine: true });
    expect(withMachine.recent.map((x) => x.ownerId)).toEqual(['', b]);
    expect(withMachine.totals.requests).toBe(2);
  });

  it('keeps the machine-wide LLM settings', async () => {
    await store().transaction((r) => r.llm.putSettings({ model: 'qwen', baseUrl: 'http://localhost:11434/v1' }));
    expect(await store().read.llm.getSettings()).toEqual({ model: 'qwen', baseUrl: 'http://localhost:11434/v1' });
    await store().transaction((r) => r.llm.putSettings(null));
    expect(await store().read.llm.getSettings()).toBeNull();
  });

  it('keeps nothing of a transaction that throws', async () => {
    const [a] = owners();
    await rolledBack(store(), async (r) => {
      await r.llm.logUsage(entry(a));
      await r.llm.putSettings({ model: 'lost' });
    });
    expect((await store().read.llm.usage(a, { limit: 10 })).totals.requests).toBe(0);
    expect(await store().read.llm.getSettings()).toBeNull();
  });
});
