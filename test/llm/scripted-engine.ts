import { afterAll, beforeAll, beforeEach } from 'vitest';
import type { Clock } from '../../core/context/engine-context.js';
import type { Engine } from '../../core/engine/open-engine.js';
import type { LlmConfigInput } from '../../core/llm/config.js';
import { openMemoryEngine } from '../helpers/engine.js';
import { startLlmServer, type LlmServer } from '../helpers/llm-server.js';

/**
 * The scripted LLM server a test file shares, and the in-memory engine that uses it (`llm` at the
 * server's URL, on `clock` if given, its warnings pushed to `warnings`): opened before the file's tests,
 * closed after them; before each test the server forgets its script and `warnings` empties.
 * Call the returned functions for the two.
 */
export function scriptedLlmEngine(o: { llm: Omit<LlmConfigInput, 'baseUrl'>; clock?: Clock; warnings: string[] }): {
  server: () => LlmServer;
  engine: () => Engine;
} {
  let server: LlmServer | undefined;
  let engine: Engine | undefined;
  beforeAll(async () => {
    server = await startLlmServer();
    engine = await openMemoryEngine({
      ...(o.clock ? { clock: o.clock } : {}),
      llm: { ...o.llm, baseUrl: server.url },
      warn: (m) => o.warnings.push(m),
    });
  });
  afterAll(async () => {
    await engine?.close();
    await server?.close();
  });
  beforeEach(() => {
    server?.reset();
    o.warnings.length = 0;
  });
  const opened = <T>(x: T | undefined): T => {
    if (x === undefined) throw new Error('the scripted LLM and its engine open before the first test');
    return x;
  };
  return { server: () => opened(server), engine: () => opened(engine) };
}
