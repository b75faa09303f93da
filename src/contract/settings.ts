// What the services remember for a person between runs: whether to keep each
// finished run in the site history, and a team's store. Kept by the services
// in a settings file beside the history (src/store/settings-file.ts), not in
// a page's storage: the web mode's page gets a new origin (a free port) on
// every `pipefill ui`, so its storage forgot both each time.

import { z } from 'zod';
import { TeamStoreAddressSchema } from './history.js';

export const SettingsSchema = z
  .object({
    /** Keep each finished assessment and capacity run in the site history (the front ends save it unless this is false). */
    keepHistory: z.boolean(),
    /** A team's PostgreSQL store the runs go to; null: this computer's. */
    teamStore: TeamStoreAddressSchema.nullable(),
  })
  .strict();
export type Settings = z.infer<typeof SettingsSchema>;

export const DEFAULT_SETTINGS: Settings = { keepHistory: true, teamStore: null };

/** A change to the settings: only what is given changes. */
export const SettingsUpdateSchema = z.object({ keepHistory: z.boolean().optional() }).strict();
export type SettingsUpdate = z.infer<typeof SettingsUpdateSchema>;
