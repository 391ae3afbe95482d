import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runNemori } from '../helpers/cli.js';
import { tempDir } from '../helpers/engine.js';
import { startLlmServer, type LlmServer } from '../helpers/llm-server.js';
import { scriptHappy, twoSessions } from './script.js';

let server: LlmServer;
beforeAll(async () => {
  server = await startLlmServer();
});
afterAll(async () => {
  await server.close();
});

/** The real `nemori` command; the only LLM it can reach is the scripted one on 127.0.0.1. */
const nemori = (env: Record<string, string>, ...args: string[]) => runNemori(args, env);

describe('nemori with an LLM', { timeout: 240_000 }, () => {
  it('imports with --llm-model / --llm-base-url, and health --json reports the LLM (configured by environment)', async () => {
    scriptHappy(server);
    const home = tempDir();
    const imported = await nemori(
      {},
      '--home',
      home,
      '--json',
      '--llm-base-url',
      server.url,
      '--llm-model',
      server.model,
      'import',
      twoSessions,
    );
    expect(imported.code).toBe(0);
    const out = JSON.parse(imported.stdout);
    expect(out.files[0]).toMatchObject({ messagesAdded: 7, episodesCreated: 3 });
    // 5 requests build the episodes, 6 read them for knowledge (the import's last phase).
    expect(server.chats().length).toBe(11);
    expect(out.discovery).toMatchObject({ episodes: 3, facts: { created: 1 }, remaining: 0 });

    const health = await nemori(
      { NEMORI_LLM_BASE_URL: server.url, NEMORI_LLM_MODEL: server.model, NEMORI_LLM_API_KEY: 'sk-cli-secret-key-987654321' },
      '--home',
      home,
      '--json',
      'health',
    );
    expect(health.code).toBe(0);
    expect(health.stdout).not.toContain('sk-cli-secret');
    const h = JSON.parse(health.stdout);
    expect(h.llm).toMatchObject({ configured: true, reachable: true, model: server.model, baseUrl: server.url, modelListed: true });
    expect(h.owners[0]).toMatchObject({ episodes: 3 });

    const rebuilt = await nemori(
      { NEMORI_LLM_BASE_URL: server.url, NEMORI_LLM_MODEL: server.model },
      '--home',
      home,
      '--json',
      'rebuild',
      '--llm',
    );
    expect(rebuilt.code).toBe(0);
    expect(JSON.parse(rebuilt.stdout)).toMatchObject({ groups: 0, remaining: 0 });
  });
});
