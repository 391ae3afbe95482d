/**
 * The LLM API key, kept out of the database: encrypted with the operating system's keychain
 * (Electron `safeStorage`: Keychain on macOS, DPAPI on Windows, libsecret/kwallet on Linux) in a file
 * of its own under the data folder. The engine gets the key for the session when it starts and never
 * writes it; main saves a new key when the person sets one in Settings. Without a keychain
 * (`isEncryptionAvailable()` false: a Linux session with no secret service) the vault is unavailable and
 * the key stays with the other LLM settings, as it does for the CLI.
 */
import fs from 'node:fs';
import path from 'node:path';
import { operations } from '../../core/api/contract';

/** The part of Electron's safeStorage the vault uses (a fake one in tests). */
export interface Encryption {
  isEncryptionAvailable(): boolean;
  encryptString(plain: string): Buffer;
  decryptString(encrypted: Buffer): string;
}

export interface KeyVault {
  readonly available: boolean;
  /** The saved key, or null (none saved, or it cannot be decrypted any more: the person sets it again). */
  load(): string | null;
  save(key: string | null): void;
}

export function createKeyVault(file: string, encryption: Encryption, log: (message: string) => void = () => {}): KeyVault {
  const available = encryption.isEncryptionAvailable();
  return {
    available,
    load() {
      if (!available || !fs.existsSync(file)) return null;
      try {
        return encryption.decryptString(fs.readFileSync(file));
      } catch (e) {
        log(`the saved LLM API key could not be decrypted (${(e as Error).message}); set it again in Settings`);
        return null;
      }
    },
    save(key) {
      if (!available) return;
      if (key === null) {
        fs.rmSync(file, { force: true });
        return;
      }
      fs.mkdirSync(path.dirname(file), { recursive: true });
      // Written aside and renamed, so a crash never leaves half a key; readable by the person only.
      const tmp = `${file}.tmp`;
      fs.writeFileSync(tmp, encryption.encryptString(key), { mode: 0o600 });
      fs.renameSync(tmp, file);
    },
  };
}

/**
 * Before a `setLlmSettings` call reaches the engine: a new key (or its removal, or switching the LLM
 * off) goes to the vault. The engine, started with the vault's key, keeps it out of the database.
 * Invalid input is left for the engine to refuse with its usual error.
 */
export function vaultKeyOf(vault: KeyVault, operation: string, input: unknown): void {
  if (!vault.available || operation !== 'setLlmSettings') return;
  const parsed = operations.setLlmSettings.input.safeParse(input);
  if (!parsed.success) return;
  if (!parsed.data.enabled) vault.save(null);
  else if (parsed.data.apiKey !== undefined) vault.save(parsed.data.apiKey);
}

/** How main hands the key to the engine process: an environment variable the engine reads once and deletes. */
export const HOST_KEY_ENV = 'NEMORI_HOST_LLM_KEY';

/** The engine side: undefined when the host keeps no vault (the key lives in the database). */
export function takeHostKey(env: NodeJS.ProcessEnv): string | null | undefined {
  const value = env[HOST_KEY_ENV];
  if (value === undefined) return undefined;
  delete env[HOST_KEY_ENV];
  return value === '' ? null : value;
}
