import { useEffect, useState } from 'react';
import { getBridge } from './bridge';
import { THEME_PREFERENCES, useThemeStore, type ThemePreference } from './store/theme';

const THEME_LABELS: Record<ThemePreference, string> = { system: 'System', light: 'Light', dark: 'Dark' };

type Connection = { state: 'connecting' } | { state: 'desktop'; version: string } | { state: 'offline'; reason: string };

function useConnection(): Connection {
  const [connection, setConnection] = useState<Connection>({ state: 'connecting' });
  useEffect(() => {
    const bridge = getBridge();
    if (!bridge) {
      setConnection({ state: 'offline', reason: 'Browser preview — no engine connected' });
      return;
    }
    let live = true;
    bridge
      .version()
      .then((version) => live && setConnection({ state: 'desktop', version }))
      .catch(() => live && setConnection({ state: 'offline', reason: 'The engine did not answer' }));
    return () => {
      live = false;
    };
  }, []);
  return connection;
}

function ThemeSwitch() {
  const preference = useThemeStore((s) => s.preference);
  const setPreference = useThemeStore((s) => s.setPreference);
  return (
    <div className="theme-switch" role="radiogroup" aria-label="Appearance">
      {THEME_PREFERENCES.map((option) => (
        <button
          key={option}
          type="button"
          role="radio"
          aria-checked={preference === option}
          onClick={() => setPreference(option)}
        >
          {THEME_LABELS[option]}
        </button>
      ))}
    </div>
  );
}

export function App() {
  const connection = useConnection();
  const today = new Intl.DateTimeFormat(undefined, { dateStyle: 'full' }).format(new Date());

  return (
    <div className="page">
      <header className="masthead">
        <h1 className="wordmark">Nemori</h1>
        <p className="tagline">your memory, on your machine</p>
      </header>

      <main className="journal">
        <article className="entry" aria-labelledby="entry-title">
          <time className="entry-date" dateTime={new Date().toISOString().slice(0, 10)}>
            {today}
          </time>
          <h2 id="entry-title">Nothing remembered yet</h2>
          <p>
            Import a chat export or connect a companion, and your conversations will gather here as episodes —
            moments with their exact time, told in your own words — alongside the quiet facts worth keeping.
          </p>
          <p>
            Everything stays on this computer: the database, the search index and the model that reads them.
            Memories fade the way yours do, unless you ask them not to.
          </p>
        </article>
      </main>

      <footer className="colophon">
        <span className="status" data-state={connection.state} role="status">
          {connection.state === 'connecting' && 'Opening…'}
          {connection.state === 'desktop' && `Desktop · v${connection.version}`}
          {connection.state === 'offline' && connection.reason}
        </span>
        <ThemeSwitch />
      </footer>
    </div>
  );
}
