import { z } from 'zod';
import { MCP_CLIENTS } from '../companions/mcp-config.js';

/**
 * The companions that use the memory over MCP (Claude Desktop, Claude Code, Cursor, VS Code, any MCP
 * client), as Settings → Companions shows them: who connected (the name and version a client gives
 * when it connects), when it last called and what, and whether it may write. The list is kept in the
 * store's settings (machine-wide), so every process serving MCP on this data folder sees the same one.
 *
 * A client seen for the first time **may write** (add_memory, memorize, forget): a companion is set up
 * to remember, and the person turns it off here. `nemori mcp --read-only` still hides the writing
 * tools altogether. A client's name is what it says it is: this keeps a well-meaning companion from
 * writing, it does not authenticate anyone (that is the bridge's token, or starting the process).
 *
 * Person-only operations (`setCompanionAccess`, `companionConfigs`, `addCompanionConfig`): a companion
 * must not change its own access or write files on disk, so the MCP tools never call them
 * (core/mcp/server.ts refuses them).
 */

/** A client's name as it says it at `initialize` (`clientInfo.name`). */
export const CompanionName = z.string().trim().min(1, 'name the companion').max(200);

/** Given to a client that never said who it is (an HTTP call without an `initialize` this process saw). */
export const UNNAMED_COMPANION = '(unnamed)';

/** Writing is allowed for a client seen for the first time. */
export const DEFAULT_CAN_WRITE = true;

export const CompanionView = z.object({
  name: z.string(),
  /** Its display name, when it gives one (`clientInfo.title`). */
  title: z.string().nullable(),
  version: z.string().nullable(),
  /** How it reached Nemori the last time: a process started by the client (`stdio`), or `/mcp` (`http`). */
  via: z.enum(['stdio', 'http']).nullable(),
  firstSeen: z.string(),
  /** The last time it connected or called. */
  lastSeen: z.string(),
  /** The last tool call, and which tool (null: it connected and called nothing yet). */
  lastCallAt: z.string().nullable(),
  lastTool: z.string().nullable(),
  calls: z.number().int(),
  /** May it use add_memory, memorize and forget. */
  canWrite: z.boolean(),
});
export type CompanionView = z.infer<typeof CompanionView>;

export const NoteCompanionInput = z.object({
  name: CompanionName,
  title: z.string().max(200).optional(),
  version: z.string().max(100).optional(),
  via: z.enum(['stdio', 'http']).optional(),
  /** The tool it is calling; absent: it connected. */
  tool: z.string().min(1).max(100).optional(),
});

export const ListCompanionsOutput = z.object({
  /** Most recently seen first. */
  companions: z.array(CompanionView),
  /** What a client seen for the first time gets. */
  defaultCanWrite: z.boolean(),
});

export const SetCompanionAccessInput = z.object({ name: CompanionName, canWrite: z.boolean() });

export const McpClientId = z.enum(MCP_CLIENTS);

const ServerEntry = z.object({
  type: z.literal('stdio').optional(),
  command: z.string(),
  args: z.array(z.string()),
  env: z.record(z.string(), z.string()).optional(),
});

export const CompanionConfig = z.object({
  client: McpClientId,
  /** The client's own configuration file on this computer (user-wide). */
  file: z.string(),
  /** The top-level object its servers are under (`mcpServers`, or VS Code's `servers`). */
  serversKey: z.string(),
  entry: ServerEntry,
  /** What to paste into the file, as JSON text. */
  snippet: z.string(),
  /** Claude Code's own command for it (null for the other clients). */
  command: z.string().nullable(),
});

export const CompanionConfigsInput = z.object({
  /** Entries that start `nemori mcp --read-only` (only the tools that read). */
  readOnly: z.boolean().optional(),
});

export const CompanionConfigsOutput = z.object({
  clients: z.array(CompanionConfig),
  /**
   * `/mcp` of the process that holds this data folder, for clients that take an HTTP entry: valid while
   * it runs (a new port and token each start). Null when no such service runs (a test engine).
   */
  http: z.object({ url: z.string(), token: z.string() }).nullable(),
});

export const AddCompanionConfigInput = z.object({ client: McpClientId, readOnly: z.boolean().optional() });
export const AddCompanionConfigOutput = z.object({
  client: McpClientId,
  file: z.string(),
  /** `unchanged`: the entry was already there exactly so; nothing was written. */
  action: z.enum(['created', 'updated', 'unchanged']),
  /** The file as it was before (null when there was none, or nothing changed). */
  backup: z.string().nullable(),
  entry: ServerEntry,
});

export const companionAccessOperations = {
  /** Called by the MCP server when a client connects and on each tool call; says whether it may write. */
  noteCompanion: { input: NoteCompanionInput, output: CompanionView },
  listCompanions: { input: z.object({}), output: ListCompanionsOutput },
  setCompanionAccess: { input: SetCompanionAccessInput, output: CompanionView },
  companionConfigs: { input: CompanionConfigsInput, output: CompanionConfigsOutput },
  addCompanionConfig: { input: AddCompanionConfigInput, output: AddCompanionConfigOutput },
} as const;

/**
 * What a companion must never do, through MCP or with a companion-scoped bridge token
 * (core/http/auth.ts): change its own access, or any operation that names a path on this machine
 * (reads, writes or probes files and folders) or changes how Nemori is set up.
 */
export const PERSON_ONLY_OPERATIONS = [
  'setCompanionAccess',
  'companionConfigs',
  'addCompanionConfig',
  'importFiles',
  'getWatchedFolder',
  'setWatchedFolder',
  'backup',
  'listBackups',
  'restoreBackup',
  'inspectFolder',
  'setDataFolder',
  'setEmbeddingModel',
  'setEngineSettings',
  'setLlmSettings',
] as const;
