// Where and as whom: the fields every call that touches a share carries.

import { z } from 'zod';

export const ShareLoginSchema = z.object({
  share: z.string().min(1),
  user: z.string().min(1),
  /** Carried to the service, never logged, printed or stored in a report. */
  password: z.string(),
  domain: z.string().optional(),
  /** `required`: sign every message, even where neither the server nor the profile asks for it. */
  signing: z.enum(['auto', 'required']).optional(),
  /** `required`: encrypt every message; `off`: stop with a clear error where the server or share requires encryption. */
  encryption: z.enum(['auto', 'required', 'off']).optional(),
});
export type ShareLogin = z.infer<typeof ShareLoginSchema>;
