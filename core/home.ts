import os from 'node:os';
import path from 'node:path';

/**
 * Where a person's memory lives: `--home`, else NEMORI_HOME, else the OS application-data folder
 * (the same folder the desktop app uses, so the CLI and the app see one store).
 */
export function resolveHome(explicit?: string, env: NodeJS.ProcessEnv = process.env): string {
  if (explicit) return path.resolve(explicit);
  if (env.NEMORI_HOME) return path.resolve(env.NEMORI_HOME);
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
