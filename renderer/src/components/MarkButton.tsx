import type { MessageKey, Translate } from '../i18n';

const LABELS: Record<'important' | 'fade', { off: MessageKey; on: MessageKey }> = {
  important: { off: 'mark.important', on: 'mark.importantOn' },
  fade: { off: 'mark.fade', on: 'mark.fadeOn' },
};

/**
 * The person's own word on a memory, episode or fact (markMemory): important (never forgotten) or
 * "let it fade" (not important). A pressed button pressed again takes the word back (null).
 */
export function MarkButton({
  which,
  marked,
  onMark,
  t,
}: {
  which: 'important' | 'fade';
  marked: boolean | null;
  onMark: (important: boolean | null) => void;
  t: Translate;
}) {
  const value = which === 'important';
  const on = marked === value;
  return (
    <button
      type="button"
      aria-pressed={on}
      title={which === 'fade' ? t('mark.fadeHint') : undefined}
      onClick={() => onMark(on ? null : value)}
      data-action={which}
    >
      {t(on ? LABELS[which].on : LABELS[which].off)}
    </button>
  );
}
