/**
 * The contract's types as the renderer sees them. `import type` only: the zod schemas stay in
 * core, the renderer bundle gets none of it (validation happens in main / the HTTP bridge).
 */
import type { OperationName, OpInput, OpOutput } from '../../../core/api/contract';
import type { CallResult, EngineEvent, WireError, WireErrorCode } from '../../../core/http/wire';

export type { CallResult, EngineEvent, OperationName, OpInput, OpOutput, WireError, WireErrorCode };

export type EpisodeView = OpOutput<'getEpisode'>['episode'];
export type MessageView = OpOutput<'getEpisode'>['messages'][number];
export type SearchOutput = OpOutput<'search'>;
export type SearchResult = SearchOutput['results'][number];
export type SearchMode = SearchOutput['mode'];
export type ImportReport = OpOutput<'importFiles'>['files'][number];
export type HealthOutput = OpOutput<'health'>;
