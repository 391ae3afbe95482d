/**
 * The LLM API key in the OS keychain instead of the database: the vault (with a stand-in for Electron's
 * safeStorage, which cannot run here), main's hand-over of new keys, and the engine keeping a host's
 * key out of its store across restarts.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openEngine } from '../../core/engine/open-engine';
import { createKeyVault, HOST_KEY_ENV, takeHostKey, vaultKeyOf, type Encryption } from '../../electron/main/key-vault';
import { tempDir } from '../helpers/engine';
import { startLlmServer, type LlmServer } from '../helpers/llm-server';

/** Reversible and visibly not plaintext: enough to prove the vault never writes the key itself. */
const fakeKeychain = (available = true): Encryption => ({
  isEncryptionAvailable: () => available,
  encryptString: (plain) => Buffer.from(`v10${Buffer.from(plain).toString('base64').split('').reverse().join('')}`),
  decryptString: (b) => {
    const s = b.toString();
    if (!s.startsWith('v10')) throw new Error('not ours');
    return Buffer.from(s.slice(3).split('').reverse().join(''), 'base64').toString();
  },
});

const KEY = 'sk-host-secret-key-123456789';

describe('the key vault', () => {
  it('keeps the key encrypted in its own file, and forgets it on request', () => {
    const file = path.join(tempDir(), 'secrets', 'llm-api-key.bin');
    const vault = createKeyVault(file, fakeKeychain());
    expect(vault.load()).toBeNull();
    vault.save(KEY);
    expect(fs.readFileSync(file, 'utf8')).not.toContain(KEY);
    expect(fs.statSync(file).mode & 0o077).toBe(0);
    expect(createKeyVault(file, fakeKeychain()).load()).toBe(KEY);
    vault.save(null);
    expect(fs.existsSync(file)).toBe(false);
  });

  it('without a keychain does nothing (the key stays with the settings), and a key it cannot decrypt is reported, not fatal', () => {
    const file = path.join(tempDir(), 'llm-api-key.bin');
    const none = createKeyVault(file, fakeKeychain(false));
    none.save(KEY);
    expect(none.available).toBe(false);
    expect(fs.existsSync(file)).toBe(false);
    fs.writeFileSync(file, 'garbage');
    const logs: string[] = [];
    expect(createKeyVault(file, fakeKeychain(), (m) => logs.push(m)).load()).toBeNull();
    expect(logs[0]).toMatch(/could not be decrypted .*set it again in Settings/);
  });

  it('takes new keys from accepted setLlmSettings calls only', () => {
    const file = path.join(tempDir(), 'llm-api-key.bin');
    const vault = createKeyVault(file, fakeKeychain());
    vaultKeyOf(vault, 'setLlmSettings', { model: 'm', apiKey: KEY });
    expect(vault.load()).toBe(KEY);
    vaultKeyOf(vault, 'setLlmSettings', { model: 'other' }); // no key given: kept
    vaultKeyOf(vault, 'search', { query: 'x', apiKey: 'nope' });
    vaultKeyOf(vault, 'setLlmSettings', { apiKey: 42 }); // invalid: the engine refuses it
    expect(vault.load()).toBe(KEY);
    vaultKeyOf(vault, 'setLlmSettings', { apiKey: null });
    expect(vault.load()).toBeNull();
    vault.save(KEY);
    vaultKeyOf(vault, 'setLlmSettings', { enabled: false });
    expect(vault.load()).toBeNull();
  });

  it('hands the key to the engine process once, through an environment variable it then removes', () => {
    const env: NodeJS.ProcessEnv = { [HOST_KEY_ENV]: KEY };
    expect(takeHostKey(env)).toBe(KEY);
    expect(env[HOST_KEY_ENV]).toBeUndefined();
    expect(takeHostKey({ [HOST_KEY_ENV]: '' })).toBeNull();
    expect(takeHostKey({})).toBeUndefined();
  });
});

describe('an engine whose host keeps the key', () => {
  let server: LlmServer;
  beforeAll(async () => {
    server = await startLlmServer();
    server.on(() => true, { json: { ok: true } });
  });
  afterAll(async () => {
    await server.close();
  });

  it('uses the key but never writes it to its database, across restarts', async () => {
    const home = tempDir();
    const first = await openEngine({ home, embedder: null, llmKeyFromHost: null });
    const view = await first.call('setLlmSettings', { baseUrl: server.url, model: server.model, apiKey: KEY });
    expect(view).toMatchObject({ enabled: true, apiKeySet: true, apiKeyHint: '…6789' });
    expect(JSON.stringify(await first.context.store.read.llm.getSettings())).not.toContain(KEY);
    // A change that leaves the key out keeps it (the host still has it too).
    await first.call('setLlmSettings', { temperature: 0.3 });
    expect((await first.call('llmTest', {})).ok).toBe(true);
    expect(server.chats().at(-1)!.headers.authorization).toBe(`Bearer ${KEY}`);
    await first.close();
    // The database files themselves never saw it.
    const leaked = (dir: string): boolean =>
      fs
        .readdirSync(dir, { withFileTypes: true })
        .some((e) => (e.isDirectory() ? leaked(path.join(dir, e.name)) : fs.readFileSync(path.join(dir, e.name)).includes(KEY)));
    expect(leaked(home)).toBe(false);

    const again = await openEngine({ home, embedder: null, llmKeyFromHost: KEY });
    expect(await again.call('getLlmSettings', {})).toMatchObject({ enabled: true, apiKeySet: true, temperature: 0.3 });
    await again.close();
    // Opened without the host (the CLI on the same data): the settings are there, the key is not.
    const cli = await openEngine({ home, embedder: null });
    expect(await cli.call('getLlmSettings', {})).toMatchObject({ enabled: true, apiKeySet: false });
    await cli.close();
  });
});
