import type { z } from 'zod';
import { episodeOperations } from './episodes-contract.js';
import { forgettingOperations } from './forgetting-contract.js';
import { importOperations } from './imports-contract.js';
import { knowledgeOperations } from './knowledge-contract.js';
import { llmOperations } from './llm-contract.js';
import { searchOperations } from './search-contract.js';
import { startupOperations } from './startup-contract.js';
import { systemOperations } from './system-contract.js';

export * from './episodes-contract.js';
export * from './forgetting-contract.js';
export * from './imports-contract.js';
export * from './llm-contract.js';
export * from './search-contract.js';
export * from './system-contract.js';

/**
 * The one contract of the engine: every operation with its input and output schema, one file per area.
 * The CLI, the Electron IPC bridge, the HTTP bridge and MCP all call through it, and all validate against it.
 */
export const operations = {
  ...searchOperations,
  ...importOperations,
  ...episodeOperations,
  ...systemOperations,
  ...forgettingOperations,
  ...llmOperations,
  ...knowledgeOperations,
  ...startupOperations,
} as const;

export type Operations = typeof operations;
export type OperationName = keyof Operations;
export type OpInput<K extends OperationName> = z.input<Operations[K]['input']>;
export type OpOutput<K extends OperationName> = z.infer<Operations[K]['output']>;
