import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { I18nProvider } from './i18n/i18n-context.tsx';
import { App } from './shell/app.tsx';
import './styles.css';

const root = document.getElementById('root');
if (root)
  createRoot(root).render(
    <StrictMode>
      <I18nProvider>
        <App />
      </I18nProvider>
    </StrictMode>,
  );
