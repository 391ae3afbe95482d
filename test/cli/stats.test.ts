/**
 * `nemori stats` opens the store without loading the embedding model; the bridge's engine has it
 * loaded. Both count the same store's vectors the same way (the CLI used to say `embedded: 0`).
 */
import { describe, expect, it } from 'vitest';
import { openDefaultEngine } from '../../core/engine/open-default.js';
import { startWebServer } from '../../core/http/server.js';
import { runNemori } from '../helpers/cli.js';
import { fixture, tempDir } from '../helpers/engine.js';
import { offlineEnv } from '../helpers/mcp.js';
import { callOp } from '../http/client.js';

interface Stats {
  owners: { ownerId: string; episodes: number; embedded: number }[];
}

describe('stats', { timeout: 240_000 }, () => {
  it('counts the embedded episodes alike from the command line and through the bridge', async () => {
    const home = tempDir('nemori-stats-');
    const env = offlineEnv(home);
    const imported = await runNemori(['--home', home, '--no-llm', 'import', fixture('import', 'two-days.json')], env);
    expect(imported.code, imported.stderr).toBe(0);

    const cli = await runNemori(['--home', home, '--json', 'stats'], env);
    expect(cli.code, cli.stderr).toBe(0);
    const fromCli = JSON.parse(cli.stdout) as Stats;
    expect(fromCli.owners[0]!.episodes).toBeGreaterThan(0);
    expect(fromCli.owners[0]!.embedded).toBe(fromCli.owners[0]!.episodes);

    const engine = await openDefaultEngine({ home, embeddings: 'auto', env, warn: () => {} });
    const server = await startWebServer({ engine, staticDir: tempDir('nemori-stats-static-'), log: () => {} });
    try {
      const reply = await callOp(server.port, server.token, 'stats', {});
      expect(reply.status).toBe(200);
      expect(reply.json<Stats>()).toEqual(fromCli);
    } finally {
      await server.close();
      await engine.close();
    }
  });
});
