import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { App } from './App';
import { applyTheme, useThemeStore } from './store/theme';
import './styles.css';

// Before the first render, so a stored dark/light choice never flashes the other theme.
applyTheme(useThemeStore.getState().preference);
useThemeStore.subscribe((state) => applyTheme(state.preference));

const container = document.getElementById('root');
if (!container) throw new Error('renderer/index.html has no #root element');

createRoot(container).render(
  <StrictMode>
    <App />
  </StrictMode>,
);
