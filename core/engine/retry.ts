import type { OperationName, OpInput } from '../api/contract.js';

/**
 * Which calls a client may send again when the holder it sent them to went away while running them
 * (killed, crashed, closed): the call may or may not have been done, so it is repeated only when doing it
 * twice leaves the memory exactly as doing it once. A call the holder never received (connection
 * refused) is always sent again, to whoever holds the folder next.
 *
 * - Reads that change nothing: listings, stats, health, settings, search without `markAccessed`, …
 * - Writes that are idempotent by design: `importFiles`, `ingestConversation` and `addMemory` whose turns
 *   carry an id or a time (conversations and messages are keyed by source and id, or by speaker, time and
 *   text, so sending them again adds nothing), `endConversation`, `rebuildIndexes` (rebuilt from
 *   the stored episodes), setting a value (`setEngineSettings`, `setLlmSettings`, `markMemory`, `setCompanionAccess`), merging
 *   Nemori's entry into a client's file (`addCompanionConfig`), and
 *   `cancelCall`.
 * - Never repeated: reads that count a recall (`getEpisode`, `getKnowledge`, `remember`, a search with
 *   `markAccessed`), writes that add or remove something each time (create, delete, memorize, upsert,
 *   forget, restore, purge, a forgetting pass, discovery and LLM rebuilds, backups), and the host's changes
 *   (move the memory, switch model, restore a backup). The client then says the call may or may not
 *   have been done, and the person checks before running it again.
 */
const REPEATABLE = {
  // Reads
  listEpisodes: true,
  episodeGraph: true,
  listEntities: true,
  listArchive: true,
  listTrash: true,
  explainDecay: true,
  listKnowledge: true,
  getKnowledgeVersion: true,
  relatedKnowledge: true,
  episodeKnowledge: true,
  summarizeKnowledge: true,
  knowledgeCapacity: true,
  enhancedQuery: true,
  stats: true,
  listSources: true,
  health: true,
  getEngineSettings: true,
  getWatchedFolder: true,
  getLlmSettings: true,
  llmUsage: true,
  llmTest: true,
  getStartup: true,
  listUpcoming: true,
  inspectFolder: true,
  listBackups: true,
  // Idempotent writes
  importFiles: true,
  ingestConversation: true,
  ingestConversations: true,
  rebuildIndexes: true,
  setEngineSettings: true,
  setWatchedFolder: true,
  setLlmSettings: true,
  markMemory: true,
  cancelCall: true,
  endConversation: true,
  loadContext: true,
  listCompanions: true,
  // Only counts a companion's calls (a call counted twice harms no memory), and says whether it may write.
  noteCompanion: true,
  companionConfigs: true,
  setCompanionAccess: true,
  // Writes the same entry again: the second time finds it there and writes nothing.
  addCompanionConfig: true,
  // Never twice
  search: false, // unless it does not mark results as accessed (below)
  addMemory: false, // unless every turn says when it was said (below)
  getEpisode: false,
  getKnowledge: false,
  remember: false,
  createEpisode: false,
  updateEpisode: false,
  deleteEpisode: false,
  runForgetting: false,
  restoreFromArchive: false,
  restoreFromTrash: false,
  purgeTrash: false,
  forgetAbout: false,
  upsertKnowledge: false,
  memorize: false,
  forgetKnowledge: false,
  undeleteKnowledge: false,
  runDiscovery: false,
  rebuildEpisodes: false,
  backup: false,
  exportMemory: false,
  // Refuses a memory that is not empty: a second run after a first that committed fails instead of duplicating.
  importMemory: false,
  setDataFolder: false,
  setEmbeddingModel: false,
  restoreBackup: false,
} as const satisfies Record<OperationName, boolean>;

/** Whether `name` with this input may run again after the holder went away in the middle of it. */
export function safeToRepeat(name: OperationName, input: unknown): boolean {
  if (name === 'search') return (input as OpInput<'search'> | null)?.markAccessed !== true;
  // A turn with an id or a time is the same turn when sent again; one stamped "now" by the holder is not.
  if (name === 'addMemory')
    return ((input as OpInput<'addMemory'> | null)?.messages ?? []).every((m) => m.id !== undefined || m.time !== undefined);
  return REPEATABLE[name];
}
