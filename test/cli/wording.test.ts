import { describe, expect, it } from 'vitest';
import { renderImport } from '../../core/cli/output.js';
import { quantity } from '../../core/text/describe.js';
import { runNemori } from '../helpers/cli.js';
import { fixture, newOwner, openMemoryEngine, tempDir } from '../helpers/engine.js';

describe('counts in words', () => {
  it('say one thing in the singular and any other number in the plural', () => {
    expect([0, 1, 2].map((n) => quantity(n, 'memory'))).toEqual(['0 memories', '1 memory', '2 memories']);
    expect(quantity(1, 'new episode')).toBe('1 new episode');
    expect(quantity(3, 'system event')).toBe('3 system events');
    expect(quantity(2, 'LLM call')).toBe('2 LLM calls');
    expect(quantity(2, 'day')).toBe('2 days');
    expect(quantity(2, 'match')).toBe('2 matches');
  });

  it('report an import of one conversation that made one episode in the singular', async () => {
    const engine = await openMemoryEngine();
    try {
      const out = await engine.call('importFiles', { ownerId: newOwner(), paths: [fixture('ingest', 'wechat', '读书会.json')] });
      const text = renderImport(out);
      expect(text).toContain('1 conversation, 5 messages (2 system events skipped)');
      expect(text).toContain('5 new messages, 1 new episode');
    } finally {
      await engine.close();
    }
  });

  it(
    'say once why the embedding model is missing, and that a model still to be downloaded is not there yet',
    { timeout: 60_000 },
    async () => {
      const home = tempDir('nemori-health-words-');
      const missing = await runNemori(['--home', home, 'health'], { NEMORI_MODEL_DIR: '/nonexistent-model-dir' });
      expect(missing.stdout).toMatch(/^embedding model: .* — unavailable: .*\/nonexistent-model-dir.*; search is keyword-only$/m);
      expect(missing.stdout.split('/nonexistent-model-dir').length - 1).toBe(1);
      const remote = await runNemori(['--home', home, 'health'], { NEMORI_ALLOW_DOWNLOAD: '1' });
      expect(remote.stdout).toMatch(/^embedding model: .* — not downloaded yet: will download from .* on first use, into .*$/m);
      expect(remote.stdout).not.toContain('available (remote');
    },
  );
});
