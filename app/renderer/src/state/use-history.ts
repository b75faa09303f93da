// The site history as the UI uses it: keep each finished run (unless the
// person turned that off; the choice is remembered in this browser), and
// browse what is kept: the runs, a site's trend, one run's report.

import { useCallback, useEffect, useState } from 'react';
import type { PipefillApi } from '../../../../src/contract/api.js';
import type { RunSummary, SiteTrend } from '../../../../src/contract/history.js';
import type { Report } from '../../../../src/contract/report.js';
import type { UiError } from './use-assessment.js';
import { toUiError } from './use-assessment.js';

const KEEP_SETTING = 'pipefill-keep-history';

export type SaveOutcome = { readonly id: number; readonly created: boolean; readonly where: string } | { readonly error: UiError };

export function useHistorySaving(api: PipefillApi) {
  const [keep, setKeepState] = useState(() => window.localStorage.getItem(KEEP_SETTING) !== 'no');
  const [lastSave, setLastSave] = useState<SaveOutcome | undefined>();
  const setKeep = useCallback((value: boolean) => {
    window.localStorage.setItem(KEEP_SETTING, value ? 'yes' : 'no');
    setKeepState(value);
  }, []);
  const save = useCallback(
    async (document: unknown) => {
      if (!keep) return;
      try {
        setLastSave(await api.historySave({ document }));
      } catch (error) {
        // The run itself is on screen and can still be exported: only keeping it failed.
        setLastSave({ error: toUiError(error) });
      }
    },
    [api, keep],
  );
  return { keep, setKeep, lastSave, save };
}

export function useHistoryBrowser(api: PipefillApi) {
  const [runs, setRuns] = useState<readonly RunSummary[] | undefined>();
  const [where, setWhere] = useState('');
  const [site, setSite] = useState<string | undefined>();
  const [trend, setTrend] = useState<SiteTrend | undefined>();
  const [error, setError] = useState<UiError | undefined>();

  const reload = useCallback(async () => {
    try {
      const listed = await api.historyList({});
      setRuns(listed.runs);
      setWhere(listed.where);
      setError(undefined);
      setSite((current) => current ?? listed.runs[0]?.site);
    } catch (caught) {
      setError(toUiError(caught));
    }
  }, [api]);

  useEffect(() => {
    void reload();
  }, [reload]);

  useEffect(() => {
    if (site === undefined) {
      setTrend(undefined);
      return;
    }
    let current = true;
    api.historyTrend({ site }).then(
      (loaded) => {
        if (current) setTrend(loaded);
      },
      (caught: unknown) => {
        if (current) setError(toUiError(caught));
      },
    );
    return () => {
      current = false;
    };
  }, [api, site, runs]);

  const open = useCallback(
    async (id: number): Promise<Report | undefined> => {
      try {
        return (await api.historyRun({ id })).report ?? undefined;
      } catch (caught) {
        setError(toUiError(caught));
        return undefined;
      }
    },
    [api],
  );

  const remove = useCallback(
    async (id: number) => {
      try {
        await api.historyDelete({ id });
      } catch (caught) {
        setError(toUiError(caught));
      }
      await reload();
    },
    [api, reload],
  );

  return { runs, where, site, setSite, trend, error, open, remove, reload };
}

const STORE_SETTING = 'pipefill-history-store';

/**
 * Which store the runs go to: this computer's (empty) or a team's PostgreSQL
 * address, remembered in this browser and applied when the app starts. The
 * services refuse an address with a password in it, so none is remembered.
 */
export function useHistoryStoreSetting(api: PipefillApi) {
  const [address, setAddress] = useState(() => window.localStorage.getItem(STORE_SETTING) ?? '');
  const [where, setWhere] = useState<string | undefined>();
  const [error, setError] = useState<UiError | undefined>();

  const apply = useCallback(
    async (next: string) => {
      const trimmed = next.trim();
      try {
        const result = await api.historyStore({ address: trimmed === '' ? null : trimmed });
        window.localStorage.setItem(STORE_SETTING, trimmed);
        setAddress(trimmed);
        setWhere(result.where);
        setError(undefined);
      } catch (caught) {
        setError(toUiError(caught));
      }
    },
    [api],
  );

  useEffect(() => {
    const saved = window.localStorage.getItem(STORE_SETTING);
    if (saved) void apply(saved);
  }, [apply]);

  return { address, where, error, apply };
}
