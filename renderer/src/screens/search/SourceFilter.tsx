import type { SourceCount } from '../../api/types';
import type { Translate } from '../../i18n';
import { sourceName } from '../../lib/sources';

/**
 * Where the episodes' conversations came from: all sources, or one of those stored (with how many
 * conversations each holds). Facts have no such source, so a fact search turns it off.
 */
export function SourceFilter({
  value,
  sources,
  disabled,
  onChange,
  t,
}: {
  value: string;
  sources: readonly SourceCount[];
  disabled: boolean;
  onChange: (source: string) => void;
  t: Translate;
}) {
  // The chosen source stays offered even when the list read later no longer holds it.
  const options = value && !sources.some((s) => s.source === value) ? [...sources, { source: value, conversations: 0 }] : sources;
  return (
    <label title={disabled ? t('search.sourceOff') : undefined}>
      {t('search.source')}
      <select value={value} disabled={disabled} onChange={(e) => onChange(e.target.value)} data-testid="search-source">
        <option value="">{t('source.all')}</option>
        {options.map((s) => (
          <option key={s.source} value={s.source}>
            {t('search.sourceOption', { name: sourceName(s.source, t), n: s.conversations })}
          </option>
        ))}
      </select>
    </label>
  );
}
