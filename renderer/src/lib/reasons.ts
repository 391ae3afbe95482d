/**
 * Why the forgetting engine moved a memory, in the reader's language. The engine hands reasons over
 * as data (core/domain/forgetting-reason.ts); only reasons stored before that are English sentences
 * (`text`), shown as they are. Pure.
 */
import type { ForgettingReason } from '../api/types';
import { intlTag, type Locale } from '../i18n/locale';
import type { Translate } from '../i18n/translate';
import { formatHere } from './dates';
import { formatNumber } from './format';

function fixed(x: number, digits: number, locale: Locale): string {
  return new Intl.NumberFormat(intlTag(locale), { minimumFractionDigits: digits, maximumFractionDigits: digits }).format(x);
}

/** Scores past 100 read as whole numbers; small ones keep a decimal (1.4 is not 1), as the CLI shows them. */
const score = (x: number, locale: Locale) => fixed(x, x >= 100 ? 0 : 1, locale);

export function describeReason(reason: ForgettingReason, t: Translate, locale: Locale): string {
  switch (reason.kind) {
    case 'decay':
      return t(reason.threshold === 'trash' ? 'reason.decay.trash' : 'reason.decay.archive', {
        score: score(reason.score, locale),
        limit: formatNumber(reason.limit, locale),
        days: formatNumber(reason.days, locale),
        importance: fixed(reason.importance, 2, locale),
        recalls: formatNumber(reason.recalls, locale),
      });
    case 'recovered':
      return t('reason.recovered', { score: score(reason.score, locale), limit: formatNumber(reason.limit, locale) });
    case 'retention':
      return t('reason.retention', { days: formatNumber(reason.days, locale), retention: formatNumber(reason.retentionDays, locale) });
    case 'important':
      return t('reason.important');
    case 'restored':
      return t(reason.from === 'trash' ? 'reason.restored.trash' : 'reason.restored.archive');
    case 'emptied':
      return t('reason.emptied');
    case 'forgotten': {
      const r = reason.request;
      if (r.by === 'key') return t('reason.forgotten.key', { key: r.key });
      if (r.by === 'before') return t('reason.forgotten.before', { date: formatHere(r.before, locale) });
      return t(r.by === 'oldest' ? 'reason.forgotten.oldest' : 'reason.forgotten.leastImportant');
    }
    case 'text':
      return reason.text;
  }
}
