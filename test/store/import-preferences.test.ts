import { describe, expect, it } from 'vitest';
import { NOW, owners, rolledBack, useStore } from './helpers.js';

describe('import preferences repository', () => {
  const store = useStore();

  it('remembers who "me" is per owner and export format, the latest choice winning', async () => {
    const [a, b] = owners();
    await store().transaction(async (r) => {
      await r.importPreferences.rememberMe(a, 'whatsapp', 'Lin', NOW);
      await r.importPreferences.rememberMe(a, 'telegram', 'lin_tg', NOW);
      await r.importPreferences.rememberMe(a, 'whatsapp', 'Lin W.', NOW);
    });
    const read = store().read.importPreferences;
    expect(await read.me(a, 'whatsapp')).toBe('Lin W.');
    expect(await read.me(a, 'telegram')).toBe('lin_tg');
    expect(await read.me(b, 'whatsapp')).toBeNull();
    await store().transaction((r) => r.importPreferences.rememberMe(b, 'whatsapp', 'Tom', NOW));
    expect(await read.me(a, 'whatsapp')).toBe('Lin W.');
  });

  it('keeps nothing of a transaction that throws', async () => {
    const [a] = owners();
    await rolledBack(store(), (r) => r.importPreferences.rememberMe(a, 'whatsapp', 'Lin', NOW));
    expect(await store().read.importPreferences.me(a, 'whatsapp')).toBeNull();
  });
});
