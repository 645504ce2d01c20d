import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { App } from './App.tsx';
import { useAppStore } from './store/index.ts';
import { applyTheme } from './theme/theme.ts';
import './styles/theme.css';
import './styles/base.css';
import './styles/app.css';

applyTheme(useAppStore.getState().theme);

const root = document.getElementById('root');
if (!root) throw new Error('index.html has no #root element');
createRoot(root).render(
  <StrictMode>
    <App />
  </StrictMode>,
);
