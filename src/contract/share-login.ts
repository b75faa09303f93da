// Where and as whom: the fields every call that touches a share carries.

import { z } from 'zod';
import { hasControlCharacter } from '../model/terminal-text.js';

/** A name a person typed: no control characters (they would reach terminals, reports and the server), and a sane length. */
const nameField = (what: string, max: number) =>
  z
    .string()
    .min(1)
    .max(max)
    .refine((text) => !hasControlCharacter(text), { message: `The ${what} holds a control character or a line break.` });

export const ShareLoginSchema = z.object({
  share: nameField('share', 1024),
  user: nameField('user name', 256),
  /** Carried to the service, never logged, printed or stored in a report. */
  password: z.string(),
  domain: nameField('domain', 256).optional(),
  /** `required`: sign every message, even where neither the server nor the profile asks for it. */
  signing: z.enum(['auto', 'required']).optional(),
  /** `required`: encrypt every message; `off`: stop with a clear error where the server or share requires encryption. */
  encryption: z.enum(['auto', 'required', 'off']).optional(),
});
export type ShareLogin = z.infer<typeof ShareLoginSchema>;
