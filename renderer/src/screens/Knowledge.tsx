import { EmptyState } from '../components/EmptyState';
import { useT } from '../i18n';
import { navigate } from '../store/route';

/** Semantic memory (facts with their versions and sources) is its own issue; until then, say so plainly. */
export function KnowledgeScreen() {
  const t = useT();
  return (
    <div className="screen">
      <header className="screen-head">
        <h1 tabIndex={-1}>{t('knowledge.title')}</h1>
      </header>
      <EmptyState
        testId="knowledge-empty"
        title={t('knowledge.empty.title')}
        action={
          <button type="button" className="primary" onClick={() => navigate({ name: 'journal' })}>
            {t('knowledge.empty.action')}
          </button>
        }
      >
        {t('knowledge.empty.body')}
      </EmptyState>
    </div>
  );
}
