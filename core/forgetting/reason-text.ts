import type { ForgetRequest, ForgettingReason } from '../domain/forgetting-reason.js';

/**
 * A forgetting reason in English, for the CLI and logs. The app words reasons itself, in the reader's
 * language (renderer/src/lib/reasons.ts); this is the engine's only English rendering of them.
 */

/** Scores past 100 read as whole numbers; small ones keep a decimal (1.4 is not 1). */
const score = (x: number) => (x >= 100 ? x.toFixed(0) : x.toFixed(1));

function requestText(r: ForgetRequest): string {
  switch (r.by) {
    case 'key':
      return `key:${r.key}`;
    case 'oldest':
      return 'oldest';
    case 'leastImportant':
      return 'least important';
    case 'before':
      return `before:${r.before}`;
  }
}

export function reasonText(r: ForgettingReason): string {
  switch (r.kind) {
    case 'decay':
      return `decay score ${score(r.score)} ≥ ${r.limit} (${r.threshold} threshold): ${r.days} days without recall, importance ${r.importance.toFixed(2)}, recalled ${r.recalls}×`;
    case 'recovered':
      return `decay score ${score(r.score)} is back under ${r.limit} (recalled again, or the settings changed)`;
    case 'retention':
      return `in the trash for ${r.days} days (retention ${r.retentionDays})`;
    case 'important':
      return 'marked important by you: exempt from forgetting';
    case 'restored':
      return `restored by you from the ${r.from}`;
    case 'emptied':
      return 'trash emptied by you';
    case 'forgotten':
      return `forgotten on request (${requestText(r.request)})`;
    case 'text':
      return r.text;
  }
}
