import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { captureToken } from './api/token';
import { App } from './App';
import { applyLocale, resolveLocale, useLocaleStore } from './i18n';
import { startEventFeed } from './store/events';
import { listenToHash } from './store/route';
import { applyTheme, useThemeStore } from './store/theme';
import './styles.css';

// First of all: take the bridge token out of the address bar (web mode), before anything reads the hash.
captureToken();

// Before the first render, so a stored dark/light choice never flashes the other theme.
applyTheme(useThemeStore.getState().preference);
useThemeStore.subscribe((state) => applyTheme(state.preference));
applyLocale(resolveLocale(useLocaleStore.getState().preference));
useLocaleStore.subscribe((state) => applyLocale(resolveLocale(state.preference)));

listenToHash();
startEventFeed();

const container = document.getElementById('root');
if (!container) throw new Error('renderer/index.html has no #root element');

createRoot(container).render(
  <StrictMode>
    <App />
  </StrictMode>,
);
