import { useT } from '../i18n';

/** A browser tab opened without the token link: say how to get in, nothing else. */
export function ConnectScreen() {
  const t = useT();
  return (
    <main className="connect">
      <span className="wordmark">Nemori</span>
      <h1>{t('connect.title')}</h1>
      <p>{t('connect.body')}</p>
    </main>
  );
}
