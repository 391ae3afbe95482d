import type { z } from 'zod';
import { NemoriError } from '../domain/errors.js';
import { episodeOperations } from './episodes-contract.js';
import { exportOperations } from './export-contract.js';
import { forgettingOperations } from './forgetting-contract.js';
import { importOperations } from './imports-contract.js';
import { knowledgeOperations } from './knowledge-contract.js';
import { companionOperations } from './companion-contract.js';
import { companionAccessOperations } from './companion-access-contract.js';
import { llmOperations } from './llm-contract.js';
import { searchOperations } from './search-contract.js';
import { startupOperations } from './startup-contract.js';
import { systemOperations } from './system-contract.js';

export * from './episodes-contract.js';
export * from './export-contract.js';
export * from './forgetting-contract.js';
export * from './imports-contract.js';
export * from './companion-contract.js';
export * from './companion-access-contract.js';
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
  ...companionOperations,
  ...companionAccessOperations,
  ...exportOperations,
} as const;

export type Operations = typeof operations;
export type OperationName = keyof Operations;
export type OpInput<K extends OperationName> = z.input<Operations[K]['input']>;
export type OpOutput<K extends OperationName> = z.infer<Operations[K]['output']>;

/** An operation's input checked against the contract; the error names the operation and the field. */
export function parseInput(name: OperationName, input: unknown): unknown {
  const parsed = operations[name].input.safeParse(input);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0]!;
  throw new NemoriError('INVALID_INPUT', `${name}: ${issue.path.join('.') || 'input'}: ${issue.message}`);
}
