import { describe, expect, it } from 'vitest';
import { rolledBack, useStore } from './helpers.js';

// Settings are machine-wide (one installation, every owner): there is no owner to keep apart.
describe('settings repository', () => {
  const store = useStore();

  it('stores a JSON document per key, replaces it, and removes it with null', async () => {
    const read = store().read.settings;
    expect(await read.get('engine')).toBeNull();
    await store().transaction((r) => r.settings.put('engine', { forgetting: { enabled: false } }));
    await store().transaction((r) => r.settings.put('other', { a: 1 }));
    expect(await read.get('engine')).toEqual({ forgetting: { enabled: false } });
    await store().transaction((r) => r.settings.put('engine', { retrieval: { alpha: 0.5 } }));
    expect(await read.get('engine')).toEqual({ retrieval: { alpha: 0.5 } });
    await store().transaction((r) => r.settings.put('engine', null));
    expect(await read.get('engine')).toBeNull();
    expect(await read.get('other')).toEqual({ a: 1 });
  });

  it('keeps nothing of a transaction that throws', async () => {
    await store().transaction((r) => r.settings.put('kept', { v: 1 }));
    await rolledBack(store(), async (r) => {
      await r.settings.put('kept', { v: 2 });
      await r.settings.put('lost', { v: 3 });
    });
    expect(await store().read.settings.get('kept')).toEqual({ v: 1 });
    expect(await store().read.settings.get('lost')).toBeNull();
  });
});
