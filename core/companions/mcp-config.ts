/**
 * `nemori mcp config` and Settings → Companions: the entry an MCP client needs to start `nemori mcp` —
 * this installation's Node and bin/nemori.mjs by absolute path, so a desktop app that does not share the shell's PATH finds
 * them — printed, or merged into the client's configuration file. Merging edits only the `nemori`
 * entry (jsonc-parser: comments, formatting and every other server stay as they were), backs the file
 * up first, and writes nothing when the entry is already there as it would be written.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { applyEdits, modify, parse, printParseErrorCode, type ParseError } from 'jsonc-parser';
import { engineEnv } from '../../bin/engine-env.mjs';
import { NemoriError } from '../domain/errors.js';

export const MCP_CLIENTS = ['claude-desktop', 'claude-code', 'cursor', 'vscode'] as const;
export type McpClient = (typeof MCP_CLIENTS)[number];
export const SERVER_NAME = 'nemori';

/** bin/nemori.mjs of this installation. */
export const NEMORI_BIN = fileURLToPath(new URL('../../bin/nemori.mjs', import.meta.url));

export interface EntryOptions {
  /** The data folder to pin (`--home`); omitted: the one `nemori` resolves by itself. */
  home?: string | undefined;
  readOnly?: boolean | undefined;
  /** Node and the bin (tests); default: the Node running now and this installation's bin. */
  node?: string;
  bin?: string;
  /** Whose C library the server runs on (tests); default: this machine's. */
  platform?: NodeJS.Platform;
}

export interface ServerEntry {
  type?: 'stdio';
  command: string;
  args: string[];
  /** What the server holding the engine starts with (bin/engine-env.mjs), and when the command is the desktop app's own binary (Electron), what makes it run as plain Node. */
  env?: Record<string, string>;
}

/** The top-level object each client keeps its servers in. */
export const serversKey = (client: McpClient): string => (client === 'vscode' ? 'servers' : 'mcpServers');

export function serverEntry(client: McpClient, o: EntryOptions = {}): ServerEntry {
  const args = [o.bin ?? NEMORI_BIN, ...(o.home ? ['--home', path.resolve(o.home)] : []), 'mcp', ...(o.readOnly ? ['--read-only'] : [])];
  const command = o.node ?? process.execPath;
  // Inside the desktop app the running binary is Electron: it runs bin/nemori.mjs as Node when told so.
  const vars = {
    ...engineEnv(o.platform),
    ...(o.node === undefined && process.versions.electron !== undefined ? { ELECTRON_RUN_AS_NODE: '1' } : {}),
  };
  const env = Object.keys(vars).length > 0 ? { env: vars } : {};
  // Claude Code and VS Code name the transport; Claude Desktop and Cursor take command + args only.
  return client === 'claude-code' || client === 'vscode' ? { type: 'stdio', command, args, ...env } : { command, args, ...env };
}

export interface Platform {
  platform: NodeJS.Platform;
  home: string;
  env: NodeJS.ProcessEnv;
}
const here = (): Platform => ({ platform: process.platform, home: os.homedir(), env: process.env });

/** Where each client reads its servers from (user-wide, not per project). */
export function clientConfigFile(client: McpClient, p: Platform = here()): string {
  const join = p.platform === 'win32' ? path.win32.join : path.posix.join;
  const appData = p.env.APPDATA ?? join(p.home, 'AppData', 'Roaming');
  const userConfig =
    p.platform === 'darwin'
      ? join(p.home, 'Library', 'Application Support')
      : p.platform === 'win32'
        ? appData
        : (p.env.XDG_CONFIG_HOME ?? join(p.home, '.config'));
  switch (client) {
    case 'claude-desktop':
      return join(userConfig, 'Claude', 'claude_desktop_config.json');
    case 'claude-code':
      // User scope: the top-level mcpServers of ~/.claude.json (what `claude mcp add -s user` writes).
      return join(p.home, '.claude.json');
    case 'cursor':
      return join(p.home, '.cursor', 'mcp.json');
    case 'vscode':
      // The user profile's mcp.json (Command Palette: "MCP: Open User Configuration").
      return join(userConfig, 'Code', 'User', 'mcp.json');
  }
}

/**
 * Claude Code's own way to add the entry (user scope): `claude mcp add -s user nemori [-e K=V …] -- …`.
 * The name goes before `-e`: its values are variadic and would take the name as one more.
 */
export function claudeCodeAddCommand(entry: ServerEntry): string {
  const quote = (a: string) => (/[\s"']/.test(a) ? JSON.stringify(a) : a);
  const env = Object.entries(entry.env ?? {})
    .map(([k, v]) => `-e ${k}=${quote(v)} `)
    .join('');
  return `claude mcp add -s user ${SERVER_NAME} ${env}-- ${[entry.command, ...entry.args].map(quote).join(' ')}`;
}

/** The configuration snippet to paste: `{ "mcpServers": { "nemori": { … } } }`. */
export function configSnippet(client: McpClient, entry: ServerEntry): Record<string, unknown> {
  return { [serversKey(client)]: { [SERVER_NAME]: entry } };
}

/** What a person needs to add the entry by hand: the file, where in it, the snippet and (Claude Code) the command instead. */
export interface ClientSetup {
  file: string;
  serversKey: string;
  snippet: Record<string, unknown>;
  command: string | null;
}

export function clientSetup(client: McpClient, entry: ServerEntry, file: string = clientConfigFile(client)): ClientSetup {
  return {
    file,
    serversKey: serversKey(client),
    snippet: configSnippet(client, entry),
    command: client === 'claude-code' ? claudeCodeAddCommand(entry) : null,
  };
}

function parseConfig(text: string, file: string): Record<string, unknown> {
  const errors: ParseError[] = [];
  const value: unknown = parse(text, errors, { allowTrailingComma: true, disallowComments: false });
  if (errors.length > 0) {
    const e = errors[0]!;
    throw new NemoriError(
      'INVALID_INPUT',
      `${file} is not valid JSON (${printParseErrorCode(e.error)} at offset ${e.offset}); fix it or pass another file with --config-file`,
    );
  }
  if (value === undefined) return {};
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw new NemoriError('INVALID_INPUT', `${file} does not hold a JSON object`);
  return value as Record<string, unknown>;
}

const sameJson = (a: unknown, b: unknown): boolean => JSON.stringify(a) === JSON.stringify(b);

/** The file's text with the nemori entry set (null: it is already set exactly so). */
export function mergeConfig(text: string, client: McpClient, entry: ServerEntry, file = 'the configuration file'): string | null {
  const base = text.trim() === '' ? '{}\n' : text;
  const config = parseConfig(base, file);
  const servers = config[serversKey(client)];
  if (servers !== undefined && (typeof servers !== 'object' || servers === null || Array.isArray(servers))) {
    throw new NemoriError('INVALID_INPUT', `${file}: "${serversKey(client)}" is not an object`);
  }
  if (servers && sameJson((servers as Record<string, unknown>)[SERVER_NAME], entry)) return null;
  const eol = base.includes('\r\n') ? '\r\n' : '\n';
  const edits = modify(base, [serversKey(client), SERVER_NAME], entry, { formattingOptions: { insertSpaces: true, tabSize: 2, eol } });
  return applyEdits(base, edits);
}

export interface WriteResult {
  file: string;
  action: 'created' | 'updated' | 'unchanged';
  /** The copy of the file as it was before (null when there was no file or nothing changed). */
  backup: string | null;
}

/**
 * Sets the nemori entry in `file`: a backup of the old file first, then the new one written whole. A file
 * that cannot be read or written is an INVALID_INPUT error naming it.
 */
export function writeClientConfig(file: string, client: McpClient, entry: ServerEntry, now: Date = new Date()): WriteResult {
  try {
    return writeMerged(file, client, entry, now);
  } catch (e) {
    if (e instanceof NemoriError) throw e;
    throw new NemoriError('INVALID_INPUT', `cannot write ${file}: ${(e as Error).message}`);
  }
}

function writeMerged(file: string, client: McpClient, entry: ServerEntry, now: Date): WriteResult {
  const exists = fs.existsSync(file);
  const before = exists ? fs.readFileSync(file, 'utf8') : '';
  const after = mergeConfig(before, client, entry, file);
  if (after === null) return { file, action: 'unchanged', backup: null };
  let backup: string | null = null;
  if (exists) {
    backup = `${file}.${now
      .toISOString()
      .replace(/[-:]/g, '')
      .replace(/\.\d+Z$/, 'Z')}.bak`;
    fs.copyFileSync(file, backup);
  } else {
    fs.mkdirSync(path.dirname(file), { recursive: true });
  }
  // Written beside the real file (a symlinked config stays a symlink) and renamed over it.
  const target = exists ? fs.realpathSync(file) : file;
  const tmp = `${target}.${process.pid}.tmp`;
  fs.writeFileSync(tmp, after.endsWith('\n') ? after : `${after}\n`);
  fs.renameSync(tmp, target);
  return { file, action: exists ? 'updated' : 'created', backup };
}
