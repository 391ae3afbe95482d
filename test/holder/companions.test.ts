/**
 * Companions and commands on one memory, with real processes and real clients: `nemori web` holds a data
 * folder while two `nemori mcp` servers (each driven by the MCP SDK's own Client over stdio, as a desktop
 * assistant starts it) add 1,000 turns each with `add_memory` and a `nemori import` adds a 1,000-message
 * file — all at once, all through the holder. Then the same three writers again, and the holder is killed
 * with -9 in the middle: they take over (one becomes the holder) and finish, and every turn any of them saw
 * acknowledged is in the store, once.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { createInterface } from 'node:readline';
import type { PGlite } from '@electric-sql/pglite';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterEach, describe, expect, it } from 'vitest';
import { holderFileOf, isAlive, lockFileOf } from '../../core/engine/holder.js';
import { openEngine } from '../../core/engine/open-engine.js';
import { ensureRendererBuilt, RENDERER_DIR } from '../e2e/harness.js';
import { runNemori, type CliResult } from '../helpers/cli.js';
import { tempDir } from '../helpers/engine.js';
import { callOp } from '../http/client.js';
import { nemoriMcpTransport, offlineEnv } from '../helpers/mcp.js';

const bin = path.join(import.meta.dirname, '..', '..', 'bin', 'nemori.mjs');
const pause = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Every process offline, on the tiny model, with its settings under the temp folder (whoever becomes the holder opens the same way). */
const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const c of cleanups.splice(0)) c();
});

// ---------------------------------------------------------------------------------------------------------
// nemori web: the holder

interface Web {
  child: ChildProcess;
  pid: number;
  port: number;
  token: string;
  exited: Promise<number | null>;
  stderr(): string;
}

async function startWeb(home: string): Promise<Web> {
  // Only its existence counts for `nemori web`; build it only when it is missing (others may be editing the sources).
  if (!fs.existsSync(path.join(RENDERER_DIR, 'index.html'))) ensureRendererBuilt();
  const child = spawn(process.execPath, [bin, '--home', home, '--json', 'web', '--no-open'], {
    env: offlineEnv(home),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  cleanups.push(() => child.kill('SIGKILL'));
  let stderr = '';
  child.stderr!.on('data', (c: Buffer) => (stderr += c.toString()));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const first = await new Promise<string>((resolve, reject) => {
    createInterface({ input: child.stdout! }).once('line', resolve);
    void exited.then((code) => reject(new Error(`nemori web exited (${code}) before printing its link: ${stderr}`)));
  });
  const { url, port } = JSON.parse(first) as { url: string; port: number };
  return { child, pid: child.pid!, port, token: url.split('#token=')[1]!, exited, stderr: () => stderr };
}

// ---------------------------------------------------------------------------------------------------------
// nemori mcp: a companion's server, driven by the SDK's Client

interface Mcp {
  client: Client;
  pid: number;
  /** Settles when the server process is gone (the SDK's transport saw it close). */
  gone: Promise<void>;
  stderr(): string;
}

async function startMcp(home: string): Promise<Mcp> {
  const transport = nemoriMcpTransport(home);
  let stderr = '';
  transport.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
  const client = new Client({ name: 'nemori-companion-test', version: '1.0.0' });
  let ended!: () => void;
  const gone = new Promise<void>((resolve) => (ended = resolve));
  client.onclose = () => ended();
  await client.connect(transport);
  const pid = transport.pid!;
  cleanups.push(() => {
    if (isAlive(pid)) process.kill(pid, 'SIGKILL');
  });
  return { client, pid, gone, stderr: () => stderr };
}

/**
 * Stops a server the way its client going away does, and waits for the process to end by itself (the SDK's
 * own close would SIGKILL it after 4 s — a holder finishing other servers' calls may need longer).
 */
async function stopMcp(m: Mcp): Promise<void> {
  if (isAlive(m.pid)) process.kill(m.pid, 'SIGTERM');
  const timedOut = await Promise.race([m.gone.then(() => false), pause(120_000).then(() => true)]);
  if (timedOut) throw new Error(`nemori mcp (pid ${m.pid}) did not exit within 120 s of SIGTERM: ${m.stderr()}`);
  await m.client.close();
}

type ToolResult = { content: { type: string; text: string }[]; structuredContent?: Record<string, unknown>; isError?: boolean };

interface Turn {
  id: string;
  speaker: string;
  role: 'user' | 'assistant';
  text: string;
  time: string;
}

const TOPICS = [
  'the marathon training plan and the sore left knee',
  'cooking a mushroom-free lasagna for Clara',
  'Biscuit the beagle chewing the desk again',
  'booking the train to Lisbon for the conference',
  'the quarterly report that is due on Friday',
  'repotting the fig tree on the balcony',
  'learning the first bars of a Chopin nocturne',
  'the leaking kitchen tap and the plumber',
];

/** Call `c` of companion `label`: the person's message and the reply, each with its own id and time. */
function exchange(label: string, c: number, base: number): Turn[] {
  const topic = TOPICS[c % TOPICS.length]!;
  const t = base + c * 60_000;
  return [
    {
      id: `${label}-${c}-user`,
      speaker: 'Alice',
      role: 'user',
      text: `(${label} ${c}) Can we talk about ${topic}?`,
      time: new Date(t).toISOString(),
    },
    {
      id: `${label}-${c}-reply`,
      speaker: 'Nemo',
      role: 'assistant',
      text: `(${label} ${c}) Of course — about ${topic}, here is what I think.`,
      time: new Date(t + 30_000).toISOString(),
    },
  ];
}

interface Feed {
  /** Turn ids the server acknowledged (add_memory answered without error). */
  acked: string[];
  /** Calls started so far (acknowledged or in flight). */
  started: number;
  /** Every error answer, in order (each call was then sent again: ids and times make that harmless). */
  errors: string[];
  /** The conversation's stored id, as each answer named it. */
  conversationIds: Set<string>;
  done: Promise<void>;
}

/** A companion adding `calls` exchanges, one add_memory after the other, to its own conversation. */
function feedMcp(m: Mcp, label: string, calls: number, base: number): Feed {
  const feed: Feed = { acked: [], started: 0, errors: [], conversationIds: new Set(), done: Promise.resolve() };
  feed.done = (async () => {
    for (let c = 0; c < calls; c++) {
      const messages = exchange(label, c, base);
      feed.started = c + 1;
      for (let attempt = 1; ; attempt++) {
        let r: ToolResult;
        try {
          r = (await m.client.callTool({ name: 'add_memory', arguments: { conversation_id: `companion-${label}`, messages } }, undefined, {
            timeout: 300_000,
          })) as ToolResult;
        } catch (e) {
          r = {
            isError: true,
            content: [{ type: 'text', text: `(the call itself failed) ${e instanceof Error ? e.message : String(e)}` }],
          };
        }
        if (!r.isError) {
          const out = r.structuredContent as { conversationId: string; stored: number; duplicates: number; messageIds: string[] };
          expect(out.stored + out.duplicates, JSON.stringify(out)).toBe(2);
          expect(out.messageIds).toHaveLength(2);
          feed.conversationIds.add(out.conversationId);
          feed.acked.push(...messages.map((x) => x.id));
          break;
        }
        feed.errors.push(`call ${c}, attempt ${attempt}: ${r.content[0]?.text}`);
        if (attempt >= 5)
          throw new Error(
            `${label}: add_memory ${c} failed ${attempt} times:\n${feed.errors.join('\n')}\n--- server stderr ---\n${m.stderr()}`,
          );
        await pause(500);
      }
    }
  })();
  return feed;
}

// ---------------------------------------------------------------------------------------------------------
// nemori import: a command adding a file

const IMPORT_CONVERSATIONS = 10;
const IMPORT_EACH = 100;

/** 10 conversations × 100 messages in Nemori's own JSON format (the generic importer's), each message with its id. */
function importFile(dir: string): { file: string; ids: string[] } {
  const t0 = Date.parse('2024-05-01T08:00:00Z');
  const ids: string[] = [];
  const conversations = Array.from({ length: IMPORT_CONVERSATIONS }, (_, c) => ({
    id: `cli-${c}`,
    title: `Imported chat ${c}`,
    messages: Array.from({ length: IMPORT_EACH }, (_, m) => {
      const id = `cli-${c}-${m}`;
      ids.push(id);
      return {
        id,
        speaker: m % 2 ? 'Ben' : 'Alice',
        role: m % 2 ? 'other' : 'user',
        text: `(cli ${c} ${m}) ${m % 2 ? 'Sounds good —' : 'I keep thinking about'} ${TOPICS[(c + m) % TOPICS.length]}`,
        timestamp: new Date(t0 + c * 86_400_000 + m * 120_000).toISOString(),
      };
    }),
  }));
  const file = path.join(dir, 'chats.json');
  fs.writeFileSync(file, JSON.stringify({ conversations }));
  return { file, ids };
}

function importWith(home: string, file: string): Promise<CliResult> {
  return runNemori(['--home', home, '--json', 'import', file], offlineEnv(home));
}

function stats(home: string): Promise<CliResult> {
  return runNemori(['--home', home, '--json', 'stats'], offlineEnv(home));
}

const messagesOf = (out: CliResult) =>
  (JSON.parse(out.stdout) as { owners: { ownerId: string; messages: number }[] }).owners.find((o) => o.ownerId === 'default')?.messages ??
  0;

// ---------------------------------------------------------------------------------------------------------
// The store itself, read once every process is gone

interface Stored {
  total: number;
  /** Per conversation key (source id): messages, and distinct message ids among them. */
  perConversation: Record<string, { messages: number; distinctIds: number }>;
  ids: Set<string>;
  health: string;
  statsMessages: number;
}

async function readStore(home: string): Promise<Stored> {
  // Nobody holds the folder any more: the lock and the holder file went with their process (or it died, and opening takes them over).
  const engine = await openEngine({ home, embedder: null });
  try {
    const health = (await engine.call('health', {})).database.status;
    const statsMessages = (await engine.call('stats', { ownerId: 'default' })).owners[0]?.messages ?? 0;
    // The store answers no per-conversation count through the contract: read its tables directly.
    const db = (engine.context.store as unknown as { db: PGlite }).db;
    const rows = await db.query<{ key: string; messages: number; distinct_ids: number }>(
      `SELECT c.external_id AS key, count(*)::int AS messages, count(DISTINCT m.external_id)::int AS distinct_ids
       FROM messages m JOIN conversations c ON c.id = m.conversation_id WHERE m.owner_id = 'default' GROUP BY c.external_id ORDER BY c.external_id`,
    );
    const ids = await db.query<{ external_id: string }>(`SELECT m.external_id FROM messages m WHERE m.owner_id = 'default'`);
    return {
      total: rows.rows.reduce((n, r) => n + r.messages, 0),
      perConversation: Object.fromEntries(rows.rows.map((r) => [r.key, { messages: r.messages, distinctIds: r.distinct_ids }])),
      ids: new Set(ids.rows.map((r) => r.external_id)),
      health,
      statsMessages,
    };
  } finally {
    await engine.close();
  }
}

const EXPECTED_CONVERSATIONS = {
  'companion-a': { messages: 1000, distinctIds: 1000 },
  'companion-b': { messages: 1000, distinctIds: 1000 },
  ...Object.fromEntries(
    Array.from({ length: IMPORT_CONVERSATIONS }, (_, c) => [`cli-${c}`, { messages: IMPORT_EACH, distinctIds: IMPORT_EACH }]),
  ),
};

const BASE_A = Date.parse('2024-03-01T07:00:00Z');
const BASE_B = Date.parse('2024-04-01T07:00:00Z');
const CALLS = 500;

describe('companions and commands on one memory', { timeout: 900_000 }, () => {
  it('takes 3,000 turns at once from two MCP servers and an import, all through `nemori web`, each exactly once', async () => {
    const home = tempDir('nemori-companions-');
    const { file, ids: importIds } = importFile(home);
    const web = await startWeb(home);
    const holds = `holds ${home} (pid ${web.pid})`;

    const [a, b] = await Promise.all([startMcp(home), startMcp(home)]);
    const feeds = [feedMcp(a!, 'a', CALLS, BASE_A), feedMcp(b!, 'b', CALLS, BASE_B)];
    const imported = importWith(home, file);
    await Promise.all(feeds.map((f) => f.done));
    const cli = await imported;

    // Every process got its answers, and none was refused.
    expect(cli.code, cli.stderr).toBe(0);
    expect(JSON.parse(cli.stdout)).toMatchObject({ files: [{ messagesAdded: 1000 }] });
    expect(cli.stderr).toContain(`using the Nemori app that ${holds}`);
    for (const [f, m] of [
      [feeds[0]!, a!],
      [feeds[1]!, b!],
    ] as const) {
      expect(f.errors).toEqual([]);
      expect(f.acked).toHaveLength(1000);
      expect(f.conversationIds.size).toBe(1);
      expect(m.stderr()).toContain(`nemori mcp: using the Nemori that ${holds}`);
    }
    // Counted through the holder, by a fourth process.
    const counted = await stats(home);
    expect(counted.code, counted.stderr).toBe(0);
    expect(counted.stderr).toContain(`using the Nemori app that ${holds}`);
    expect(messagesOf(counted)).toBe(3000);

    await Promise.all([stopMcp(a!), stopMcp(b!)]);
    web.child.kill('SIGINT');
    expect(await web.exited, web.stderr()).toBe(0);
    const everything = [a!.stderr(), b!.stderr(), cli.stderr, counted.stderr, web.stderr()].join('\n');
    expect(everything).not.toContain('STORE_LOCKED');
    expect(fs.existsSync(lockFileOf(home))).toBe(false);
    expect(fs.existsSync(holderFileOf(home))).toBe(false);

    // Everything closed: a fresh command holds the folder itself and finds the same memory.
    const fresh = await stats(home);
    expect(fresh.code, fresh.stderr).toBe(0);
    expect(fresh.stderr).not.toContain('using the Nemori');
    expect(messagesOf(fresh)).toBe(3000);

    const stored = await readStore(home);
    expect(stored.health).toBe('ok');
    expect(stored.statsMessages).toBe(3000);
    expect(stored.total).toBe(3000);
    expect(stored.perConversation).toEqual(EXPECTED_CONVERSATIONS);
    for (const id of [...feeds[0]!.acked, ...feeds[1]!.acked, ...importIds]) expect(stored.ids.has(id), id).toBe(true);
  });

  it('carries on when the holder is killed with -9 mid-way: the writers take over, and every acknowledged turn is stored once', async () => {
    const home = tempDir('nemori-companions-killed-');
    const { file, ids: importIds } = importFile(home);
    const web = await startWeb(home);

    // The companions' servers are up (clients of the holder) before the import starts.
    const [a, b] = await Promise.all([startMcp(home), startMcp(home)]);
    let cliExited = false;
    const imported = importWith(home, file).finally(() => (cliExited = true));
    // The import has stored its first conversations (each is committed whole): now the companions start too.
    let importedBefore = 0;
    const importedSoFar = async () =>
      (await callOp(web.port, web.token, 'stats', { ownerId: 'default' })).json<{ owners: { messages: number }[] }>().owners[0]?.messages ??
      0;
    while (!cliExited && (importedBefore = await importedSoFar()) === 0) await pause(25);
    const feeds = [feedMcp(a!, 'a', CALLS, BASE_A), feedMcp(b!, 'b', CALLS, BASE_B)];
    // A failing writer must not leave the test waiting for the kill.
    const failed = new Promise<never>((_, reject) => feeds.forEach((f) => f.done.catch(reject)));
    failed.catch(() => {});
    // Kill the holder once both companions have had turns acknowledged (the import most likely still running).
    const kill = (async () => {
      while (Math.min(feeds[0]!.acked.length, feeds[1]!.acked.length) < 20) await pause(10);
      const importInFlight = !cliExited;
      const acked = feeds.map((f) => f.acked.length);
      web.child.kill('SIGKILL');
      await web.exited;
      return { acked, importInFlight };
    })();
    const { acked: ackedAtKill, importInFlight } = await Promise.race([kill, failed]);
    expect(Math.min(...ackedAtKill)).toBeGreaterThan(0);

    // The writers finish (the companions' calls with ids and times are sent again for them when needed).
    await Promise.race([Promise.all(feeds.map((f) => f.done)), failed]);
    let cli = await imported;
    const cliRuns = [cli];
    // A command told its import "may or may not have been done" may run it again (ids make that harmless).
    if (cli.code !== 0 && /may or may not have been done/.test(cli.stderr)) {
      cli = await importWith(home, file);
      cliRuns.push(cli);
    }
    expect(cli.code, cliRuns.map((r) => r.stderr).join('\n---\n')).toBe(0);
    const report = JSON.parse(cli.stdout) as { files: { messagesAdded: number }[] };

    // Who held the folder after the kill, and what every process said.
    const after = fs.existsSync(holderFileOf(home))
      ? (JSON.parse(fs.readFileSync(holderFileOf(home), 'utf8')) as { pid: number }).pid
      : null;
    const everything = [a!.stderr(), b!.stderr(), ...cliRuns.map((r) => r.stderr), ...feeds.flatMap((f) => f.errors)].join('\n');
    expect(everything).not.toContain('STORE_LOCKED');
    for (const f of feeds) {
      expect(f.acked).toHaveLength(1000);
      expect(f.conversationIds.size).toBe(1);
    }
    // Someone took over: the writers that went on as clients name the new holder (one of them), never the dead one again.
    const named = [...everything.matchAll(/holds .+? \(pid (\d+)\)/g)].map((m) => Number(m[1]));
    expect(named[0]).toBe(web.pid);
    expect(named.filter((pid) => pid !== web.pid).length).toBeGreaterThan(0);

    await Promise.all([stopMcp(a!), stopMcp(b!)]);
    // Every child is gone: nothing holds the folder (the last holder let go, or it is the dead web's leftovers).
    for (const pid of [a!.pid, b!.pid, web.pid]) expect(isAlive(pid)).toBe(false);

    const stored = await readStore(home);
    const missing = [...feeds[0]!.acked, ...feeds[1]!.acked, ...importIds].filter((id) => !stored.ids.has(id));
    console.log(
      `[companions] killed nemori web (pid ${web.pid}) after ${ackedAtKill.join(' + ')} acknowledged add_memory calls; import in flight: ${importInFlight} (${importedBefore} of its messages seen stored before the companions started)` +
        ` (its final run added ${report.files[0]?.messagesAdded}, ${cliRuns.length} run(s)); holder once the writers were done: ${after === a!.pid ? 'companion a' : after === b!.pid ? 'companion b' : after === web.pid ? 'the dead web (stale file)' : (after ?? 'none')};` +
        ` stderr a: ${JSON.stringify(a!.stderr())} b: ${JSON.stringify(b!.stderr())} cli: ${JSON.stringify(cliRuns.map((r) => r.stderr))};` +
        ` error answers the companions retried: ${feeds[0]!.errors.length} + ${feeds[1]!.errors.length}${feeds.some((f) => f.errors.length) ? `\n${feeds.flatMap((f) => f.errors).join('\n')}` : ''}`,
    );
    expect(missing).toEqual([]);
    expect(stored.health).toBe('ok');
    expect(stored.total).toBe(3000);
    expect(stored.perConversation).toEqual(EXPECTED_CONVERSATIONS);
  });
});
