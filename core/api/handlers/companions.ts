import { z } from 'zod';
import { claudeCodeAddCommand, clientConfigFile, configSnippet, MCP_CLIENTS, serverEntry, serversKey, writeClientConfig, type McpClient } from '../../companions/mcp-config.js';
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

/**
 * Settings → Companions (core/api/companion-access-contract.ts): who uses the memory over MCP and
 * whether it may write, and setting the clients up (their configuration files, core/companions).
 */
export function companionHandlers({ ctx, companionHome, mcpAddress }: HandlerEnv): Handlers<'noteCompanion' | 'listCompanions' | 'setCompanionAccess' | 'companionConfigs' | 'addCompanionConfig'> {
  const { store } = ctx;
  const entryFor = (client: McpClient, readOnly: boolean | undefined) => serverEntry(client, { home: companionHome ?? undefined, readOnly });

  return {
    async noteCompanion(i) {
      const now = ctx.clock.now().toISOString();
      return store.transaction(async (r) => {
        const list = await readList(r.settings, ctx.warn);
        const known = list.find((c) => c.name === i.name);
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
        const next = [after, ...list.filter((c) => c.name !== i.name)].sort(newestFirst).slice(0, MAX_COMPANIONS);
        await r.settings.put(COMPANIONS_KEY, { companions: next });
        return after;
      });
    },

    async listCompanions() {
      const list = await readList(store.read.settings, ctx.warn);
      return { companions: list.sort(newestFirst), defaultCanWrite: DEFAULT_CAN_WRITE };
    },

    async setCompanionAccess(i) {
      return store.transaction(async (r) => {
        const list = await readList(r.settings, ctx.warn);
        const known = list.find((c) => c.name === i.name);
        if (!known) throw new NemoriError('NOT_FOUND', `no companion named “${i.name}” has connected to Nemori`);
        const after = { ...known, canWrite: i.canWrite };
        await r.settings.put(COMPANIONS_KEY, { companions: list.map((c) => (c.name === i.name ? after : c)) });
        return after;
      });
    },

    async companionConfigs(i) {
      const clients = MCP_CLIENTS.map((client) => {
        const entry = entryFor(client, i.readOnly);
        return {
          client,
          file: clientConfigFile(client),
          serversKey: serversKey(client),
          entry,
          snippet: JSON.stringify(configSnippet(client, entry), null, 2),
          command: client === 'claude-code' ? claudeCodeAddCommand(entry) : null,
        };
      });
      const at = mcpAddress();
      return { clients, http: at ? { url: `http://127.0.0.1:${at.port}/mcp`, token: at.token } : null };
    },

    async addCompanionConfig(i) {
      const entry = entryFor(i.client, i.readOnly);
      const file = clientConfigFile(i.client);
      try {
        return { client: i.client, ...writeClientConfig(file, i.client, entry, ctx.clock.now()), entry };
      } catch (e) {
        if (e instanceof NemoriError) throw e;
        throw new NemoriError('INVALID_INPUT', `cannot write ${file}: ${(e as Error).message}`);
      }
    },
  };
}
