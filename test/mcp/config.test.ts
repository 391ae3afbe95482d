/**
 * `nemori mcp config`: the entry each client needs, where each client keeps it, and merging it into an
 * existing configuration file (other servers and comments kept, a backup first, nothing written twice).
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { engineEnv } from '../../bin/engine-env.mjs';
import {
  claudeCodeAddCommand,
  clientConfigFile,
  mergeConfig,
  NEMORI_BIN,
  serverEntry,
  writeClientConfig,
} from '../../core/companions/mcp-config.js';
import { runNemori } from '../helpers/cli.js';
import { tempDir } from '../helpers/engine.js';

const FIXTURE = `{
  // Claude Desktop settings, with a comment a plain JSON rewrite would lose
  "globalShortcut": "Ctrl+Space",
  "mcpServers": {
    "filesystem": {
      "command": "npx",
      "args": ["-y", "@modelcontextprotocol/server-filesystem", "/home/alice/Documents"]
    },
    "nemori": { "command": "old-node", "args": ["old/bin/nemori.mjs", "mcp"] }
  }
}
`;

describe('MCP client configuration', () => {
  it("starts `nemori mcp` with this Node and this installation's bin, by absolute path", () => {
    expect(path.isAbsolute(NEMORI_BIN)).toBe(true);
    expect(fs.existsSync(NEMORI_BIN)).toBe(true);
    expect(serverEntry('claude-desktop', { platform: 'darwin' })).toEqual({ command: process.execPath, args: [NEMORI_BIN, 'mcp'] });
    expect(serverEntry('cursor', { home: '/data/mem', readOnly: true, platform: 'win32' })).toEqual({
      command: process.execPath,
      args: [NEMORI_BIN, '--home', path.resolve('/data/mem'), 'mcp', '--read-only'],
    });
    expect(serverEntry('claude-code')).toMatchObject({ type: 'stdio', command: process.execPath });
    expect(serverEntry('vscode')).toMatchObject({ type: 'stdio' });
  });

  it("on Linux, starts the server with one malloc arena (glibc keeps what V8's compiler threads freed otherwise)", () => {
    const entry = serverEntry('claude-code', { platform: 'linux' });
    expect(entry).toEqual({ type: 'stdio', command: process.execPath, args: [NEMORI_BIN, 'mcp'], env: { MALLOC_ARENA_MAX: '1' } });
    expect(claudeCodeAddCommand(entry)).toBe(
      `claude mcp add -s user nemori -e MALLOC_ARENA_MAX=1 -- ${process.execPath} ${NEMORI_BIN} mcp`,
    );
    expect(serverEntry('cursor', { platform: 'darwin' }).env).toBeUndefined();
  });

  it('knows where each client keeps its servers', () => {
    const linux = { platform: 'linux' as const, home: '/home/alice', env: {} };
    const mac = { platform: 'darwin' as const, home: '/Users/alice', env: {} };
    const win = { platform: 'win32' as const, home: 'C:\\Users\\alice', env: { APPDATA: 'C:\\Users\\alice\\AppData\\Roaming' } };
    expect(clientConfigFile('claude-desktop', mac)).toBe('/Users/alice/Library/Application Support/Claude/claude_desktop_config.json');
    expect(clientConfigFile('claude-desktop', win)).toBe('C:\\Users\\alice\\AppData\\Roaming\\Claude\\claude_desktop_config.json');
    expect(clientConfigFile('claude-desktop', linux)).toBe('/home/alice/.config/Claude/claude_desktop_config.json');
    expect(clientConfigFile('claude-code', linux)).toBe('/home/alice/.claude.json');
    expect(clientConfigFile('cursor', win)).toBe('C:\\Users\\alice\\.cursor\\mcp.json');
    expect(clientConfigFile('vscode', mac)).toBe('/Users/alice/Library/Application Support/Code/User/mcp.json');
    expect(clientConfigFile('vscode', { ...linux, env: { XDG_CONFIG_HOME: '/xdg' } })).toBe('/xdg/Code/User/mcp.json');
  });

  it('merges the entry into a fixture file: other servers and comments kept, a backup written, idempotent on a second run', () => {
    const dir = tempDir('nemori-mcp-config-');
    const file = path.join(dir, 'claude_desktop_config.json');
    fs.writeFileSync(file, FIXTURE);
    const entry = serverEntry('claude-desktop', { home: '/data/mem' });

    const first = writeClientConfig(file, 'claude-desktop', entry, new Date('2024-05-01T10:20:30Z'));
    expect(first).toEqual({ file, action: 'updated', backup: path.join(dir, 'claude_desktop_config.json.20240501T102030Z.bak') });
    expect(fs.readFileSync(first.backup!, 'utf8')).toBe(FIXTURE);
    const text = fs.readFileSync(file, 'utf8');
    expect(text).toContain('// Claude Desktop settings, with a comment a plain JSON rewrite would lose');
    expect(text).toContain('"globalShortcut": "Ctrl+Space"');
    const parsed = JSON.parse(text.replace(/^\s*\/\/.*$/m, '')) as { mcpServers: Record<string, unknown> };
    expect(Object.keys(parsed.mcpServers)).toEqual(['filesystem', 'nemori']);
    expect(parsed.mcpServers.filesystem).toEqual({
      command: 'npx',
      args: ['-y', '@modelcontextprotocol/server-filesystem', '/home/alice/Documents'],
    });
    expect(parsed.mcpServers.nemori).toEqual(entry);

    const second = writeClientConfig(file, 'claude-desktop', entry, new Date('2024-05-01T10:25:00Z'));
    expect(second).toEqual({ file, action: 'unchanged', backup: null });
    expect(fs.readFileSync(file, 'utf8')).toBe(text);
    expect(fs.readdirSync(dir).sort()).toEqual(['claude_desktop_config.json', 'claude_desktop_config.json.20240501T102030Z.bak']);
  });

  it('creates a missing file (and its folder), uses VS Code\'s "servers", and refuses a file that is not JSON', () => {
    const dir = tempDir('nemori-mcp-config-');
    const file = path.join(dir, 'Code', 'User', 'mcp.json');
    const created = writeClientConfig(file, 'vscode', serverEntry('vscode'));
    expect(created).toEqual({ file, action: 'created', backup: null });
    expect(JSON.parse(fs.readFileSync(file, 'utf8'))).toEqual({ servers: { nemori: serverEntry('vscode') } });
    expect(mergeConfig('', 'cursor', serverEntry('cursor'))).toContain('"mcpServers"');
    const broken = path.join(dir, 'broken.json');
    fs.writeFileSync(broken, '{ "mcpServers": ');
    expect(() => writeClientConfig(broken, 'cursor', serverEntry('cursor'))).toThrow(/broken\.json is not valid JSON/);
    expect(fs.readFileSync(broken, 'utf8')).toBe('{ "mcpServers": ');
  });

  it('`nemori mcp config` prints the entry, and --write merges it into --config-file', { timeout: 120_000 }, async () => {
    // This machine's entry: with the engine's environment where its C library reads it.
    const here = Object.keys(engineEnv()).length > 0 ? { env: engineEnv() } : {};
    const printed = await runNemori(['--json', 'mcp', 'config', '--client', 'cursor']);
    expect(printed.code).toBe(0);
    expect(JSON.parse(printed.stdout)).toMatchObject({
      client: 'cursor',
      key: 'mcpServers',
      entry: { command: process.execPath, args: [NEMORI_BIN, 'mcp'], ...here },
    });
    const human = await runNemori(['mcp', 'config', '--client', 'claude-code', '--read-only']);
    const e = Object.entries(engineEnv())
      .map(([k, v]) => `-e ${k}=${v} `)
      .join('');
    expect(human.stdout).toContain(`claude mcp add -s user nemori ${e}-- ${process.execPath} ${NEMORI_BIN} mcp --read-only`);

    const dir = tempDir('nemori-mcp-config-');
    const file = path.join(dir, 'mcp.json');
    fs.writeFileSync(file, '{"mcpServers":{"other":{"command":"x"}}}');
    const home = path.join(dir, 'memory');
    const written = await runNemori(['--home', home, '--json', 'mcp', 'config', '--client', 'cursor', '--write', '--config-file', file]);
    expect(written.code).toBe(0);
    expect(JSON.parse(written.stdout)).toMatchObject({ action: 'updated', file });
    expect(JSON.parse(fs.readFileSync(file, 'utf8'))).toEqual({
      mcpServers: { other: { command: 'x' }, nemori: { command: process.execPath, args: [NEMORI_BIN, '--home', home, 'mcp'], ...here } },
    });
    const again = await runNemori(['--home', home, 'mcp', 'config', '--client', 'cursor', '--write', '--config-file', file]);
    expect(again.stdout).toContain('already has this nemori server; nothing changed');
    const missing = await runNemori(['mcp', 'config']);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/--client/);
  });
});
