// The site history as the UI uses it: keep each finished run (unless the
// person turned that off; the services remember the choice, not the page,
// whose storage the web mode's new port each run would forget), and browse
// what is kept: the runs, a site's trend, one run's report.

import { useCallback, useEffect, useState } from 'react';
import type { PipefillApi } from '../../../../src/contract/api.js';
import type { RunSummary, SiteTrend } from '../../../../src/contract/history.js';
import type { CapacityResult } from '../../../../src/contract/capacity.js';
import type { Report } from '../../../../src/contract/report.js';
import type { UiError } from './use-cancellable-call.js';
import { toUiError } from './use-cancellable-call.js';

export type SaveOutcome = { readonly id: number; readonly created: boolean; readonly where: string } | { readonly error: UiError };

export function useHistorySaving(api: PipefillApi) {
  // Undefined until the services answer: a run that finishes before then asks them (never keeps by guess).
  const [keep, setKeepState] = useState<boolean | undefined>();
  const [lastSave, setLastSave] = useState<SaveOutcome | undefined>();
  useEffect(() => {
    let current = true;
    api.settings({}).then(
      (settings) => {
        if (current) setKeepState(settings.keepHistory);
      },
      () => undefined,
    );
    return () => {
      current = false;
    };
  }, [api]);
  // The box shows the choice at once and stays disabled until the services have saved it (a start closed
  // meanwhile would forget it); a save that failed puts back what the services hold.
  const [saving, setSaving] = useState(false);
  const setKeep = useCallback(
    async (value: boolean) => {
      const before = keep;
      setKeepState(value);
      setSaving(true);
      try {
        setKeepState((await api.settingsUpdate({ keepHistory: value })).keepHistory);
      } catch (error) {
        setLastSave({ error: toUiError(error) });
        // What the services hold; where they cannot say, what the box showed before (never a box left disabled).
        setKeepState(
          await api.settings({}).then(
            (settings) => settings.keepHistory,
            () => before,
          ),
        );
      } finally {
        setSaving(false);
      }
    },
    [api, keep],
  );
  const save = useCallback(
    async (document: unknown) => {
      const keeping =
        keep ??
        (await api.settings({}).then(
          (settings) => settings.keepHistory,
          () => true,
        ));
      if (!keeping) return;
      try {
        setLastSave(await api.historySave({ document }));
      } catch (error) {
        // The run itself is on screen and can still be exported: only keeping it failed.
        setLastSave({ error: toUiError(error) });
      }
    },
    [api, keep],
  );
  return { keep: keep ?? true, keepSettled: keep !== undefined && !saving, setKeep, lastSave, save };
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
    async (id: number): Promise<{ readonly report: Report } | { readonly capacity: CapacityResult } | undefined> => {
      try {
        const stored = await api.historyRun({ id });
        return stored.report ? { report: stored.report } : stored.capacity ? { capacity: stored.capacity } : undefined;
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

/**
 * Which store the runs go to: this computer's (empty) or a team's PostgreSQL
 * address, which the services remember (their settings file) and use from
 * their start. The services refuse an address with a password in it, so
 * none is remembered.
 */
export function useHistoryStoreSetting(api: PipefillApi) {
  const [address, setAddress] = useState('');
  const [where, setWhere] = useState<string | undefined>();
  const [error, setError] = useState<UiError | undefined>();

  const apply = useCallback(
    async (next: string) => {
      const trimmed = next.trim();
      try {
        const result = await api.historyStore({ address: trimmed === '' ? null : trimmed });
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
    let current = true;
    api.settings({}).then(
      (settings) => {
        if (current) setAddress(settings.teamStore ?? '');
      },
      () => undefined,
    );
    return () => {
      current = false;
    };
  }, [api]);

  return { address, where, error, apply };
}
