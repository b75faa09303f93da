// Electron's main process: one window on the built renderer, a menu, and the
// contract registered over IPC. Security baseline (docs/architecture.md, "Electron"): context
// isolation, sandbox, no Node in the page, a strict CSP (in the page), no
// remote content, navigation and new windows refused, every IPC message from
// our own page only.

import { app, BrowserWindow, ipcMain, Menu, net, protocol, session, shell } from 'electron';
import { join, normalize, sep } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { createLocalApi } from '../../src/service/local-api.js';
import { packageRoot } from '../../src/platform/package-root.js';
import { registerContract } from './ipc-handlers.js';
import { denyAllPermissions } from './permissions.js';

const rendererDir = join(packageRoot(), 'dist', 'renderer');
// dist/electron/app/main/main.js -> dist/electron/app/preload/preload.cjs
const preload = fileURLToPath(new URL('../preload/preload.cjs', import.meta.url));

// The page is served from a scheme of its own rather than file://: module
// scripts load under a real origin, and nothing else on disk is reachable.
const SCHEME = 'pipefill';
const PAGE_ORIGIN = `${SCHEME}://app`;
const pageUrl = `${PAGE_ORIGIN}/index.html`;
protocol.registerSchemesAsPrivileged([{ scheme: SCHEME, privileges: { standard: true, secure: true, supportFetchAPI: true } }]);

function serveRenderer(): void {
  protocol.handle(SCHEME, (request) => {
    const { host, pathname } = new URL(request.url);
    let file: string;
    try {
      file = normalize(join(rendererDir, decodeURIComponent(pathname)));
    } catch {
      return new Response('Bad path', { status: 400 });
    }
    if (host !== 'app' || !file.startsWith(rendererDir + sep)) return new Response('Not found', { status: 404 });
    return net.fetch(pathToFileURL(file).href);
  });
}

function createWindow(): BrowserWindow {
  const window = new BrowserWindow({
    width: 1280,
    height: 860,
    minWidth: 1024,
    minHeight: 700,
    title: 'Pipefill',
    webPreferences: { preload, contextIsolation: true, sandbox: true, nodeIntegration: false, webSecurity: true, spellcheck: false },
  });
  window.webContents.on('will-navigate', (event) => event.preventDefault());
  window.webContents.setWindowOpenHandler(({ url }) => {
    // Links to documentation open in the system browser, never in the app.
    if (url.startsWith('https://')) void shell.openExternal(url);
    return { action: 'deny' };
  });
  void window.loadURL(pageUrl);
  return window;
}

function buildMenu(): void {
  Menu.setApplicationMenu(
    Menu.buildFromTemplate([
      ...(process.platform === 'darwin' ? [{ role: 'appMenu' as const }] : []),
      { role: 'fileMenu' },
      { role: 'editMenu' },
      { role: 'viewMenu' },
      { role: 'windowMenu' },
    ]),
  );
}

app.enableSandbox();
void app.whenReady().then(() => {
  denyAllPermissions(session.defaultSession);
  serveRenderer();
  buildMenu();
  // Our page only, whatever its fragment (the Planner keeps its link there).
  registerContract(ipcMain, createLocalApi({ shell: 'electron' }), (url) => url.split('#')[0] === pageUrl);
  createWindow();
  app.on('activate', () => {
    if (BrowserWindow.getAllWindows().length === 0) createWindow();
  });
});
app.on('window-all-closed', () => {
  if (process.platform !== 'darwin') app.quit();
});
// No webviews, no remote content.
app.on('web-contents-created', (_event, contents) => {
  contents.on('will-attach-webview', (event) => event.preventDefault());
});
