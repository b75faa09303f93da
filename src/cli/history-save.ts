// After `assess` and `capacity`: the run goes into the site history unless
// the person said --no-history. The report has been printed and written by
// then; a store that refuses the run is an error the person sees (exit 1),
// never a lost report.

import type { PipefillApi } from '../contract/api.js';
import type { Output } from './output.js';

export const HISTORY_USAGE_LINE = '--no-history: do not keep this run in the site history (pipefill history list).';
export const NO_HISTORY_OPTION = { 'no-history': { type: 'boolean' } } as const;

export async function saveToHistory(
  api: PipefillApi,
  document: unknown,
  values: { readonly 'no-history'?: boolean | undefined },
  output: Output,
): Promise<void> {
  if (values['no-history']) return;
  const saved = await api.historySave({ document });
  output.err(
    saved.created ? `Saved to the site history as run ${saved.id} (${saved.where}).` : `Already in the site history as run ${saved.id} (${saved.where}).`,
  );
}
