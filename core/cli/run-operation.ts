import type { OperationName, OpInput, OpOutput } from '../api/contract.js';
import type { CallOptions } from '../engine/open-engine.js';

/**
 * How a command runs an operation, lent by the host command line (core/cli/main.ts) to the command
 * groups: whether it needs the embedding model (`probe`: only if one is already there), the operation
 * and its input, and how its output reads for a person when `--json` is not given.
 */
export type RunOperation = <K extends OperationName>(
  embeddings: 'auto' | 'off' | 'probe',
  op: K,
  input: OpInput<K>,
  human: (o: OpOutput<K>) => string,
  opts?: CallOptions,
) => Promise<OpOutput<K>>;
