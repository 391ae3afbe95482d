import { useEffect, useRef } from 'react';
import { connectionKind } from './api/client';
import { Sidebar } from './components/Sidebar';
import { useLocale, useT } from './i18n';
import { useRouteStore, navigate, type Route, type Section } from './store/route';
import { ConnectScreen } from './screens/Connect';
import { EpisodeScreen } from './screens/Episode';
import { ImportScreen } from './screens/Import';
import { JournalScreen } from './screens/Journal';
import { KnowledgeScreen } from './screens/Knowledge';
import { MemoryCareScreen } from './screens/MemoryCare';
import { SearchScreen } from './screens/Search';
import { SettingsScreen } from './screens/Settings';

function sectionOf(route: Route): Section | null {
  return route.name === 'episode' ? null : route.name;
}

function Screen({ route }: { route: Route }) {
  switch (route.name) {
    case 'journal':
      return <JournalScreen />;
    case 'episode':
      return <EpisodeScreen key={route.id} id={route.id} />;
    case 'search':
      return <SearchScreen q={route.q} />;
    case 'import':
      return <ImportScreen />;
    case 'settings':
      return <SettingsScreen />;
    case 'knowledge':
      return <KnowledgeScreen id={route.id} />;
    case 'care':
      return <MemoryCareScreen />;
  }
}

/** "/" searches from anywhere, unless the person is typing. */
function useGlobalKeys(): void {
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      const target = e.target as HTMLElement | null;
      const typing = target?.closest('input, textarea, select, [contenteditable="true"], dialog');
      if (e.key === '/' && !typing && !e.ctrlKey && !e.metaKey && !e.altKey) {
        e.preventDefault();
        const input = document.getElementById('search-input');
        if (input) input.focus();
        else navigate({ name: 'search', q: '' });
      }
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, []);
}

/** After each move, focus goes where the new screen wants it (its `data-autofocus`) or to its heading. */
function useFocusOnRouteChange(route: Route, main: React.RefObject<HTMLElement | null>): void {
  const first = useRef(true);
  useEffect(() => {
    if (first.current) {
      first.current = false;
      return;
    }
    const root = main.current;
    const target = root?.querySelector<HTMLElement>('[data-autofocus]') ?? root?.querySelector<HTMLElement>('h1');
    target?.focus({ preventScroll: true });
  }, [route, main]);
}

export function App() {
  const route = useRouteStore((s) => s.route);
  const locale = useLocale();
  const t = useT();
  const main = useRef<HTMLElement>(null);
  useGlobalKeys();
  useFocusOnRouteChange(route, main);

  if (connectionKind() === 'none') return <ConnectScreen />;
  return (
    <div className="app" data-locale={locale}>
      <button type="button" className="skip" onClick={() => main.current?.querySelector<HTMLElement>('[data-autofocus], h1')?.focus()}>
        {t('app.skip')}
      </button>
      <Sidebar current={sectionOf(route)} />
      <main ref={main} className="main" data-screen={route.name}>
        <Screen route={route} />
      </main>
    </div>
  );
}
