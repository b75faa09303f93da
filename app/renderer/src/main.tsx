import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { connect, launchCodeFromHash } from './api/connect.js';
import { App } from './app.js';
import './styles.css';

// A new launch address pasted into this tab changes only the fragment, which reloads nothing: start over with its
// code (the page of a spent address would otherwise stay where it was).
window.addEventListener('hashchange', () => {
  if (launchCodeFromHash(window.location.hash)) window.location.reload();
});

const root = document.getElementById('root');
if (root) {
  createRoot(root).render(
    <StrictMode>
      <App api={connect()} />
    </StrictMode>,
  );
}
