/**
 * A call's progress by phase, as pure functions. Some calls report several phases side by side (an
 * import stores messages, builds episodes and embeds them conversation by conversation), so the latest
 * event alone would make a bar jump between them: each phase keeps its own latest numbers.
 */
import type { CallProgress } from '../api/types';

/** The latest progress of each phase, in the order the phases began. */
export type Stages = Readonly<Record<string, CallProgress>>;

export function withStage(stages: Stages, p: CallProgress): Stages {
  return { ...stages, [p.phase]: p };
}

function stageComplete(p: CallProgress | undefined): boolean {
  return p !== undefined && p.done >= p.total;
}

/**
 * Where the work stands: the first phase of `order` that has not reached its total (the later ones
 * wait on it); a phase not heard of yet has not. Null when every one has.
 */
export function currentStage<S extends string>(stages: Stages, order: readonly S[]): S | null {
  return order.find((phase) => !stageComplete(stages[phase])) ?? null;
}
