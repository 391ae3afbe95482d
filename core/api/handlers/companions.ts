import { z } from 'zod';
import { clientConfigFile, clientSetup, MCP_CLIENTS, serverEntry, writeClientConfig, type McpClient } from '../../companions/mcp-config.js';
import type { EngineContext } from '../../context/engine-context.js';
import { NemoriError } from '../../domain/errors.js';
import { CompanionView, DEFAULT_CAN_WRITE } from '../companion-access-contract.js';
import type { Handlers, HandlerEnv } from '../handler.js';

/** The settings key of the companions list (machine-wide, like every setting). */
export const COMPANIONS_KEY = 'companions';
/** The most clients kept; the one seen longest ago goes first (names are whatever clients say). */
export const MAX_COMPANIONS = 100;

const Stored = z.object({ companions: z.array(CompanionView) });

async function readList(read: EngineContext['store']['read']['settings'], warn: (m: string) => void): Promise<CompanionView[]> {
  const doc = await read.get(COMPANIONS_KEY);
  if (doc === null) return [];
  const parsed = Stored.safeParse(doc);
  if (parsed.success) return parsed.data.companions;
  // A list another version wrote in another shape: started again, access back to the default.
  warn(`the saved companions list is not readable (${parsed.error.issues[0]?.message}); starting a new one`);
  return [];
}

const newestFirst = (a: CompanionView, b: CompanionView) => b.lastSeen.localeCompare(a.lastSeen) || a.name.localeCompare(b.name);

/** How long counts and last calls wait in memory before they are written (a crash loses at most these). */
export const NOTE_FLUSH_MS = 2_000;

export interface CompanionAccess {
  handlers: Handlers<'noteCompanion' | 'listCompanions' | 'setCompanionAccess' | 'companionConfigs' | 'addCompanionConfig'>;
  /** Writes what `noteCompanion` keeps in memory; the engine calls it before the store closes. */
  flush(): Promise<void>;
}

/**
 * Settings → Companions (core/api/companion-access-contract.ts): who uses the memory over MCP and
 * whether it may write, and setting the clients up (their configuration files, core/companions).
 *
 * `noteCompanion` runs before every tool call a companion makes (and a writing tool waits for its
 * answer), so it answers from the list kept in memory by this engine — every process reaches the folder
 * through it — and writes the counts behind, at most every NOTE_FLUSH_MS, never in the way of the
 * `add_memory` it precedes. What the person sets (`setCompanionAccess`) is written at once.
 */
export function companionAccess({ ctx, companionHome, mcpAddress }: HandlerEnv): CompanionAccess {
  const { store } = ctx;
  const entryFor = (client: McpClient, readOnly: boolean | undefined) =>
    serverEntry(client, { home: companionHome ?? undefined, readOnly });
  let list: CompanionView[] | null = null;
  let dirty = false;
  let timer: NodeJS.Timeout | null = null;
  /** Serialises loading and writing the list. */
  let queue: Promise<unknown> = Promise.resolve();
  const serial = <T>(work: () => Promise<T>): Promise<T> => {
    const run = queue.then(work);
    queue = run.catch(() => {});
    return run;
  };
  const loaded = async (): Promise<CompanionView[]> => (list ??= await readList(store.read.settings, ctx.warn));
  const save = () =>
    serial(async () => {
      if (!dirty || !list) return;
      const companions = list;
      dirty = false;
      try {
        await store.transaction((r) => r.settings.put(COMPANIONS_KEY, { companions }));
      } catch (e) {
        dirty = true;
        throw e;
      }
    });
  const later = () => {
    dirty = true;
    timer ??= setTimeout(() => {
      timer = null;
      save().catch((e: unknown) => ctx.warn(`cannot save the companions list: ${e instanceof Error ? e.message : String(e)}`));
    }, NOTE_FLUSH_MS);
    timer.unref?.();
  };

  const handlers: CompanionAccess['handlers'] = {
    async noteCompanion(i) {
      const now = ctx.clock.now().toISOString();
      return serial(async () => {
        const all = await loaded();
        const known = all.find((c) => c.name === i.name);
        const before: CompanionView = known ?? {
          name: i.name,
          title: null,
          version: null,
          via: null,
          firstSeen: now,
          lastSeen: now,
          lastCallAt: null,
          lastTool: null,
          calls: 0,
          canWrite: DEFAULT_CAN_WRITE,
        };
        const after: CompanionView = {
          ...before,
          title: i.title ?? before.title,
          version: i.version ?? before.version,
          via: i.via ?? before.via,
          lastSeen: now,
          ...(i.tool ? { lastCallAt: now, lastTool: i.tool, calls: before.calls + 1 } : {}),
        };
        list = [after, ...all.filter((c) => c.name !== i.name)].sort(newestFirst).slice(0, MAX_COMPANIONS);
        later();
        return after;
      });
    },

    async listCompanions() {
      const all = await serial(loaded);
      return { companions: [...all].sort(newestFirst), defaultCanWrite: DEFAULT_CAN_WRITE };
    },

    async setCompanionAccess(i) {
      const after = await serial(async () => {
        const all = await loaded();
        const known = all.find((c) => c.name === i.name);
        if (!known) throw new NemoriError('NOT_FOUND', `no companion named “${i.name}” has connected to Nemori`);
        const changed = { ...known, canWrite: i.canWrite };
        list = all.map((c) => (c.name === i.name ? changed : c));
        dirty = true;
        return changed;
      });
      // Written before the answer: the person's choice survives a crash a moment later.
      await save();
      return after;
    },

    async companionConfigs(i) {
      const clients = MCP_CLIENTS.map((client) => {
        const entry = entryFor(client, i.readOnly);
        const setup = clientSetup(client, entry);
        return { client, ...setup, entry, snippet: JSON.stringify(setup.snippet, null, 2) };
      });
      const at = mcpAddress();
      return { clients, http: at ? { url: `http://127.0.0.1:${at.port}/mcp`, token: at.token } : null };
    },

    async addCompanionConfig(i) {
      const entry = entryFor(i.client, i.readOnly);
      return { client: i.client, ...writeClientConfig(clientConfigFile(i.client), i.client, entry, ctx.clock.now()), entry };
    },
  };

  return {
    handlers,
    async flush() {
      if (timer) clearTimeout(timer);
      timer = null;
      await save();
    },
  };
}
