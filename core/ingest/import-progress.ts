import type { BuildStep } from '../episodes/process.js';
import type { Progress, ProgressFacts } from '../jobs/progress.js';

/**
 * An import's phases, in the order the work flows: messages stored, messages gathered into episodes,
 * episodes embedded, then knowledge discovery (only with an LLM). The first three advance together,
 * conversation by conversation.
 */
export type ImportStage = 'import' | 'episodes' | 'embeddings' | 'discovery';

export interface ImportTotals {
  /** Messages in every file of the batch that is to be stored (the dry-run pass measured them). */
  messages: number;
  embedder: boolean;
  /** An LLM is configured: knowledge discovery reads the new episodes once they are stored. */
  discovery: boolean;
}

export interface ImportProgress {
  /** Building's steps for one conversation of `messages` messages, read from `file`. */
  conversation(
    messages: number,
    file: NonNullable<ProgressFacts['file']>,
  ): {
    onProgress(s: BuildStep): void;
    /** Its messages all belong to episodes now, also those an earlier import gathered (nothing new to build). */
    processed(): void;
  };
  discovery(done: number, total: number): void;
}

/**
 * An import's progress as a person follows it, one phase per stage, totals over the whole batch:
 * messages stored and messages gathered into episodes (of all the batch's messages), episodes embedded
 * (of the episodes built so far), then knowledge discovery. Every stage starts with an event of its
 * own, so all the bars show from the start, and reaches its total, also on a re-import that adds nothing.
 */
export function importProgress(emit: (e: Progress) => void, totals: ImportTotals): ImportProgress {
  let stored = 0;
  let gathered = 0;
  let built = 0;
  let embedded = 0;
  const send = (phase: ImportStage, done: number, total: number, facts?: ProgressFacts) =>
    emit({ phase, done, total, ...(facts ? { facts } : {}) });
  const sendGathered = () => send('episodes', gathered, totals.messages, { episodes: built });

  send('import', 0, totals.messages);
  sendGathered();
  send('embeddings', 0, 0, totals.embedder ? undefined : { keywordOnly: true });
  if (totals.discovery) send('discovery', 0, 0);

  return {
    conversation(messages, file) {
      // A re-import can rebuild more than the file holds (an episode's earlier messages): a conversation
      // never counts beyond its own (conversations built together report in any order).
      let mine = 0;
      return {
        onProgress(s) {
          if (s.step === 'stored') {
            stored += s.messages;
            send('import', stored, totals.messages, { file });
          } else if (s.step === 'gathered') {
            const more = Math.min(messages - mine, s.messages);
            mine += more;
            gathered += more;
            built += s.episodes;
            sendGathered();
          } else {
            embedded += s.episodes;
            send('embeddings', embedded, built);
          }
        },
        processed() {
          if (mine === messages) return;
          gathered += messages - mine;
          mine = messages;
          sendGathered();
        },
      };
    },
    discovery: (done, total) => send('discovery', done, total),
  };
}
