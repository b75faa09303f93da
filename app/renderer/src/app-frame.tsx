// The app's frame around the views: the navigation, the theme, what the
// services say of themselves at start-up, and the page a person meets when
// this page has no session. Apart from app.tsx, which holds the state the
// views share.

import { useEffect, useState } from 'react';
import type { PipefillApi } from '../../../src/contract/api.js';
import type { HostInfo } from '../../../src/contract/host-info.js';
import type { Catalogue } from '../../../src/contract/plan.js';
import type { PlannerSettings } from './state/planner.js';
import { plannerHash } from './state/planner.js';
import type { UiError } from './state/use-cancellable-call.js';
import { toUiError } from './state/use-cancellable-call.js';

export type Theme = 'light' | 'dark';

function initialTheme(): Theme {
  const saved = window.localStorage.getItem('pipefill-theme');
  if (saved === 'light' || saved === 'dark') return saved;
  return window.matchMedia('(prefers-color-scheme: dark)').matches ? 'dark' : 'light';
}

/** The theme, remembered on this machine and set on the page. */
export function useTheme(): [Theme, (theme: Theme) => void] {
  const [theme, setTheme] = useState<Theme>(initialTheme);
  useEffect(() => {
    document.documentElement.dataset['theme'] = theme;
    window.localStorage.setItem('pipefill-theme', theme);
  }, [theme]);
  return [theme, setTheme];
}

/**
 * The view this tab shows, remembered so a reload stays on it (sessionStorage:
 * per tab, gone with the tab); `forced` opens on another (a shared plan's address opens the Planner).
 */
export function useRememberedView<View extends string>(views: readonly View[], fallback: View, forced?: View): [View, (view: View) => void] {
  const [view, setView] = useState<View>(() => forced ?? views.find((id) => id === window.sessionStorage.getItem('pipefill-view')) ?? fallback);
  useEffect(() => {
    window.sessionStorage.setItem('pipefill-view', view);
  }, [view]);
  return [view, setView];
}

/** A shared planner address kept in step with the sliders while the Planner shows (the session is not in the address). */
export function useSharedPlanAddress(planner: PlannerSettings, showing: boolean): void {
  useEffect(() => {
    if (showing && window.location.hash.startsWith('#plan&')) window.history.replaceState(null, '', plannerHash(planner));
  }, [planner, showing]);
}

/** The services' catalogue and their word about the host, once per API; a failure to get either is the page's load error. */
export function useServiceInfo(api: PipefillApi): { catalogue?: Catalogue; host?: HostInfo; loadError?: UiError } {
  const [catalogue, setCatalogue] = useState<Catalogue | undefined>();
  const [host, setHost] = useState<HostInfo | undefined>();
  const [loadError, setLoadError] = useState<UiError | undefined>();
  useEffect(() => {
    api.catalogue({}).then(setCatalogue, (error: unknown) => setLoadError(toUiError(error)));
    api.hostInfo({}).then(setHost, (error: unknown) => setLoadError(toUiError(error)));
  }, [api]);
  return { ...(catalogue ? { catalogue } : {}), ...(host ? { host } : {}), ...(loadError ? { loadError } : {}) };
}

/** The views to move between, the theme switch, and which Pipefill this is. */
export function Nav<View extends string>({
  views,
  labels,
  view,
  onView,
  theme,
  onTheme,
  host,
}: {
  readonly views: readonly View[];
  readonly labels: Readonly<Record<View, string>>;
  readonly view: View;
  readonly onView: (view: View) => void;
  readonly theme: Theme;
  readonly onTheme: (theme: Theme) => void;
  readonly host: HostInfo | undefined;
}) {
  return (
    <nav aria-label="Views">
      <h1>Pipefill</h1>
      {views.map((id) => (
        <button key={id} type="button" aria-current={view === id ? 'page' : undefined} onClick={() => onView(id)}>
          {labels[id]}
        </button>
      ))}
      <div className="spacer" />
      <button
        type="button"
        onClick={() => onTheme(theme === 'dark' ? 'light' : 'dark')}
        aria-label={`Switch to the ${theme === 'dark' ? 'light' : 'dark'} theme`}
      >
        {theme === 'dark' ? 'Light theme' : 'Dark theme'}
      </button>
      {host && (
        <p className="hint">
          Pipefill {host.version} ({host.shell})
        </p>
      )}
    </nav>
  );
}

/** A page with no session: what happened, and how to get a page that can work. */
export function NoSession({ error }: { readonly error: UiError }) {
  return (
    <main className="app-gone">
      <section className="panel" role="alert" data-testid="no-session">
        <h1>Pipefill</h1>
        <p>{error.message}</p>
        <p>{error.hint}</p>
      </section>
    </main>
  );
}
