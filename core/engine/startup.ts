import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { z } from 'zod';

/**
 * What must be known before the store opens, so it cannot live in the store: where the memory is kept
 * and which embedding model reads it. Chosen in the app's Settings and saved in `startup.json` in the
 * OS application-data folder — a fixed place, so the app and the CLI find a memory that was moved.
 */
export const StartupFile = z.object({
  dataDir: z.string().min(1).optional(),
  embeddingModel: z.string().min(1).optional(),
});
export type StartupFile = z.infer<typeof StartupFile>;

/** Who fixed a setting for this run, over what Settings saved (then the app cannot change it). */
export type PinnedBy = '--home' | 'NEMORI_HOME' | 'NEMORI_EMBEDDING_MODEL' | null;

export interface Startup {
  /** The data folder: store, downloaded models, backups, the keychain-sealed API key. */
  home: string;
  homePinnedBy: PinnedBy;
  /** The embedding model id, when one other than the default is chosen. */
  embeddingModel: string | undefined;
  modelPinnedBy: PinnedBy;
  /** Where the choices are saved. */
  file: string;
  /** The folder used when nothing else is chosen. */
  defaultHome: string;
}

/** The OS application-data folder (the same folder for the desktop app and the CLI). */
export function defaultHome(env: NodeJS.ProcessEnv = process.env): string {
  const home = os.homedir();
  switch (process.platform) {
    case 'darwin':
      return path.join(home, 'Library', 'Application Support', 'Nemori');
    case 'win32':
      return path.join(env.APPDATA ?? path.join(home, 'AppData', 'Roaming'), 'Nemori');
    default:
      return path.join(env.XDG_DATA_HOME ?? path.join(home, '.local', 'share'), 'nemori');
  }
}

/** A startup file that cannot be read or parsed is ignored with a warning: the app must still open. */
export function readStartupFile(file: string, warn: (m: string) => void = () => {}): StartupFile {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT') warn(`cannot read ${file}: ${(e as Error).message}`);
    return {};
  }
  try {
    const parsed = StartupFile.safeParse(JSON.parse(text));
    if (parsed.success) return parsed.data;
    warn(`${file} is not valid (${parsed.error.issues[0]?.message}); using the default data folder and model`);
  } catch {
    warn(`${file} is not JSON; using the default data folder and model`);
  }
  return {};
}

/** Saves a change to the startup file atomically (written beside it, then renamed over it). */
export function saveStartupFile(file: string, change: StartupFile): void {
  const next = { ...readStartupFile(file), ...change };
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const tmp = `${file}.${process.pid}.tmp`;
  fs.writeFileSync(tmp, `${JSON.stringify(next, null, 2)}\n`);
  fs.renameSync(tmp, file);
}

/**
 * Where the memory lives and which model reads it: `--home`, else NEMORI_HOME, else what Settings saved,
 * else the OS application-data folder; NEMORI_EMBEDDING_MODEL, else what Settings saved, else the default.
 */
export function resolveStartup(explicitHome?: string, env: NodeJS.ProcessEnv = process.env, warn?: (m: string) => void): Startup {
  const base = defaultHome(env);
  const file = path.join(base, 'startup.json');
  const saved = readStartupFile(file, warn);
  const [home, homePinnedBy]: [string, PinnedBy] = explicitHome
    ? [path.resolve(explicitHome), '--home']
    : env.NEMORI_HOME
      ? [path.resolve(env.NEMORI_HOME), 'NEMORI_HOME']
      : [saved.dataDir ?? base, null];
  const envModel = env.NEMORI_EMBEDDING_MODEL || undefined;
  return {
    home,
    homePinnedBy,
    embeddingModel: envModel ?? saved.embeddingModel,
    modelPinnedBy: envModel ? 'NEMORI_EMBEDDING_MODEL' : null,
    file,
    defaultHome: base,
  };
}
