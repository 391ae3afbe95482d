import { useCallback, useEffect, useRef, useState, type KeyboardEvent } from 'react';
import { useShallow } from 'zustand/react/shallow';
import { call } from '../api/client';
import type { FactView } from '../api/types';
import { EmptyState } from '../components/EmptyState';
import { FactCard, entityTypeName } from '../components/FactParts';
import { Segmented } from '../components/Segmented';
import { ShowMore } from '../components/ShowMore';
import { useLocale, useT, type Translate } from '../i18n';
import { describeError } from '../lib/errors';
import { useKnowledgeStore } from '../store/knowledge';
import { navigate } from '../store/route';
import { FactDetail } from './knowledge/FactDetail';
import { FactEditor } from './knowledge/FactEditor';

/** ↑↓, Home and End move between the fact links of a list; Enter opens one (it is a link). */
function moveAmongLinks(e: KeyboardEvent<HTMLElement>, onPastEnd: () => void): void {
  const links = [...e.currentTarget.querySelectorAll<HTMLAnchorElement>('a.fact-card')];
  const at = links.indexOf(document.activeElement as HTMLAnchorElement);
  const to = { ArrowDown: at + 1, ArrowUp: Math.max(0, at - 1), Home: 0, End: links.length - 1 }[e.key];
  if (to === undefined) return;
  e.preventDefault();
  if (to >= links.length) onPastEnd();
  links[Math.min(to, links.length - 1)]?.focus();
}

/** The entity types as a filter, each with its count; "all" first. */
function TypeFilter({ t }: { t: Translate }) {
  const { entityType, entityTypes } = useKnowledgeStore(useShallow((s) => ({ entityType: s.entityType, entityTypes: s.entityTypes })));
  const total = entityTypes.reduce((n, x) => n + x.count, 0);
  const types =
    entityTypes.some((x) => x.entityType === entityType) || entityType === null ? entityTypes : [...entityTypes, { entityType, count: 0 }];
  const options = [
    { value: '', label: t('knowledge.filter.all', { n: total }) },
    ...types.map((x) => ({
      value: x.entityType,
      label: t('knowledge.filter.type', { type: entityTypeName(x.entityType, t, true), n: x.count }),
    })),
  ];
  return (
    <Segmented
      label={t('knowledge.filter')}
      value={entityType ?? ''}
      options={options}
      onChange={(v) => useKnowledgeStore.getState().setEntityType(v || null)}
      name="entity-type"
      className="wrap"
    />
  );
}

/** The facts, most recently changed first, paged as the list scrolls. */
function FactList({ selected, focusId, t }: { selected: string | null; focusId: string | null; t: Translate }) {
  const { facts, done, loading, error } = useKnowledgeStore(
    useShallow((s) => ({ facts: s.facts, done: s.done, loading: s.loading, error: s.error })),
  );
  const loadMore = useCallback(() => void useKnowledgeStore.getState().loadMore(), []);
  return (
    <div className="fact-list-pane">
      <ul
        className="fact-cards fact-list"
        aria-label={t('knowledge.listLabel')}
        onKeyDown={(e) => moveAmongLinks(e, loadMore)}
        data-testid="fact-list"
      >
        {facts.map((f, i) => (
          <li key={f.id}>
            <FactCard
              fact={f}
              t={t}
              current={f.id === selected || f.key === selected}
              autoFocus={selected === null && (focusId ? f.id === focusId : i === 0)}
            />
          </li>
        ))}
      </ul>
      <div className="list-foot" aria-live="polite">
        {error && (
          <p className="error">
            {describeError(error, t)}{' '}
            <button type="button" onClick={loadMore}>
              {t('common.retry')}
            </button>
          </p>
        )}
        {!done && !error && (
          <ShowMore label={loading ? t('knowledge.loadingMore') : t('knowledge.more')} onMore={loadMore} busy={loading} />
        )}
        {done && facts.length === 0 && <p className="muted">{t('knowledge.noneOfType')}</p>}
      </div>
    </div>
  );
}

/**
 * Semantic memory: what Nemori knows about the people, places and things in the person's life. The
 * list on the left (by entity type), the fact chosen (`#/knowledge/<id>`) on the right with its history.
 */
export function KnowledgeScreen({ id }: { id?: string }) {
  const t = useT();
  const locale = useLocale();
  const { empty, entityTypes } = useKnowledgeStore(
    useShallow((s) => ({ empty: s.done && s.facts.length === 0 && s.entityType === null, entityTypes: s.entityTypes })),
  );
  const [adding, setAdding] = useState(false);
  const [forgotten, setForgotten] = useState<FactView | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const store = useKnowledgeStore.getState();
  /** The fact last shown, so closing it (Esc) puts the focus back on its line. */
  const lastOpened = useRef<string | null>(null);
  const detailPane = useRef<HTMLDivElement>(null);
  useEffect(() => {
    if (id) lastOpened.current = id;
    detailPane.current?.scrollTo({ top: 0 });
  }, [id]);

  // Facts are learnt in the background: every visit starts from the current list.
  useEffect(() => useKnowledgeStore.getState().reload(), []);

  useEffect(() => {
    if (!id) return;
    const onKey = (e: globalThis.KeyboardEvent) => {
      if (e.key === 'Escape' && !(e.target as HTMLElement | null)?.closest('input, textarea, select, dialog'))
        navigate({ name: 'knowledge' });
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [id]);

  const onChanged = (f: FactView) => {
    if (useKnowledgeStore.getState().facts.some((x) => x.id === f.id)) store.patchFact(f);
    else store.reload();
  };
  const onForgotten = (f: FactView) => {
    store.removeFact(f.id);
    setNotice(null);
    setForgotten(f);
    navigate({ name: 'knowledge' }, { replace: true });
  };
  const undo = async (f: FactView) => {
    try {
      await call('undeleteKnowledge', { key: f.id });
      setForgotten(null);
      setNotice(t('knowledge.restored', { label: f.label }));
      store.reload();
      navigate({ name: 'knowledge', id: f.id }, { replace: true });
    } catch (e) {
      setNotice(describeError(e, t));
    }
  };
  const addForm = adding && (
    <FactEditor
      kinds={entityTypes.map((x) => x.entityType)}
      t={t}
      onCancel={() => setAdding(false)}
      onSaved={(w) => {
        setAdding(false);
        setForgotten(null);
        setNotice(t('knowledge.added', { label: w.fact.label }));
        store.reload();
        navigate({ name: 'knowledge', id: w.id });
      }}
    />
  );
  const addButton = (primary: boolean) => (
    <button type="button" className={primary ? 'primary' : undefined} onClick={() => setAdding(true)} data-action="add" disabled={adding}>
      {t('knowledge.add')}
    </button>
  );

  return (
    <div className="screen knowledge-screen">
      <header className="screen-head knowledge-head">
        <h1 tabIndex={-1}>{t('knowledge.title')}</h1>
        {!empty && addButton(false)}
      </header>
      {(notice || forgotten) && (
        <p className="notice" role="status" data-testid="knowledge-notice">
          {forgotten ? (
            <>
              {t('knowledge.forgotten', { label: forgotten.label })}{' '}
              <button type="button" className="link" onClick={() => void undo(forgotten)} data-action="undo" data-autofocus>
                {t('knowledge.undo')}
              </button>
            </>
          ) : (
            notice
          )}
        </p>
      )}
      {addForm}
      {empty && !id ? (
        !adding && (
          <EmptyState
            testId="knowledge-empty"
            title={t('knowledge.empty.title')}
            action={
              <>
                {addButton(true)}{' '}
                <button type="button" onClick={() => navigate({ name: 'settings' })}>
                  {t('knowledge.empty.settings')}
                </button>
              </>
            }
          >
            {t('knowledge.empty.body')}
          </EmptyState>
        )
      ) : (
        <>
          <TypeFilter t={t} />
          <div className="knowledge-body">
            <FactList selected={id ?? null} focusId={lastOpened.current} t={t} />
            <div className="fact-detail-pane" ref={detailPane}>
              {id ? (
                <FactDetail key={id} id={id} locale={locale} t={t} onChanged={onChanged} onForgotten={onForgotten} />
              ) : (
                <p className="fact-pick muted">{t('knowledge.pick')}</p>
              )}
            </div>
          </div>
        </>
      )}
    </div>
  );
}
