/**
 * The contract's types as the renderer sees them. `import type` only: the zod schemas stay in
 * core, the renderer bundle gets none of it (validation happens in main / the HTTP bridge).
 */
import type { OperationName, OpInput, OpOutput } from '../../../core/api/contract';
import type { CallResult, EngineEvent, ImportStage, ModelStatus, ProgressFacts, WireError, WireErrorCode } from '../../../core/api/wire';

export type {
  CallResult,
  EngineEvent,
  ImportStage,
  ModelStatus,
  OperationName,
  OpInput,
  OpOutput,
  ProgressFacts,
  WireError,
  WireErrorCode,
};

/** One progress event of a call, as whoever follows the call hears it. */
export interface CallProgress {
  phase: string;
  done: number;
  total: number;
  facts: ProgressFacts | undefined;
}

export type EpisodeView = OpOutput<'getEpisode'>['episode'];
export type MessageView = OpOutput<'getEpisode'>['messages'][number];
export type SearchOutput = OpOutput<'search'>;
export type SearchResult = SearchOutput['results'][number];
export type SearchMode = SearchOutput['mode'];
export type ImportReport = OpOutput<'importFiles'>['files'][number];
export type HealthOutput = OpOutput<'health'>;
export type SearchKind = NonNullable<OpInput<'search'>['kind']>;
export type EpisodeResult = Extract<SearchResult, { kind: 'episode' }>;
export type FactResult = Extract<SearchResult, { kind: 'semantic' }>;
export type FactView = OpOutput<'listKnowledge'>['facts'][number];
export type KnowledgeDetail = OpOutput<'getKnowledge'>;
export type FactVersion = KnowledgeDetail['timeline'][number];
export type RelatedFact = KnowledgeDetail['related']['direct'][number];
export type EpisodeRef = KnowledgeDetail['linkedEpisodes'][number];
export type EpisodeFact = OpOutput<'episodeKnowledge'>['facts'][number];
export type DiscoveryRun = OpOutput<'runDiscovery'>;
export type KnowledgeCapacity = OpOutput<'knowledgeCapacity'>;
export type EngineSettings = OpOutput<'getEngineSettings'>;
export type EngineSettingsChange = OpInput<'setEngineSettings'>;
export type StartupView = OpOutput<'getStartup'>;
export type FolderCheck = OpOutput<'inspectFolder'>;
export type BackupFile = OpOutput<'listBackups'>['backups'][number];
export type WatchedFolder = OpOutput<'getWatchedFolder'>;
export type WatchedFile = WatchedFolder['recent'][number];
/** Why a memory moved between tiers, as data (core/domain/forgetting-reason.ts); lib/reasons.ts words it. */
export type ForgettingReason = OpOutput<'runForgetting'>['moves'][number]['reason'];
/** One place conversations came from (an importer's format id, `api`, a companion's name) and how many. */
export type SourceCount = OpOutput<'listSources'>['sources'][number];
