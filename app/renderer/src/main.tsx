import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { connect } from './api/connect.js';
import { App } from './app.js';
import './styles.css';

const root = document.getElementById('root');
if (root) {
  createRoot(root).render(
    <StrictMode>
      <App api={connect()} />
    </StrictMode>,
  );
}
