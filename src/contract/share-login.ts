// Where and as whom: the fields every call that touches a share carries.

import { z } from 'zod';
import { PipefillInputError } from '../model/errors.js';
import type { SharePath } from '../model/share-path.js';
import { parseSharePath, withAddress } from '../model/share-path.js';
import { hasControlCharacter } from '../model/terminal-text.js';

/**
 * A share as the contract hands it to a service: the text the person gave
 * (what reports and the history name it by) and its parts, parsed once here
 * at the contract's edge. The wire carries the text; every service gets this.
 */
export interface ShareRef {
  readonly text: string;
  readonly path: SharePath;
}

/** A name a person typed: no control characters (they would reach terminals, reports and the server), and a sane length. */
const nameField = (what: string, max: number) =>
  z
    .string()
    .min(1)
    .max(max)
    .refine((text) => !hasControlCharacter(text), { message: `The ${what} holds a control character or a line break.` });

/** A share path's text, parsed into a ShareRef; what is wrong with it is the field's error. */
const shareField = nameField('share', 1024).transform((text, context): ShareRef => {
  try {
    return { text, path: parseSharePath(text) };
  } catch (error) {
    context.addIssue({ code: 'custom', message: error instanceof PipefillInputError ? `${error.message} ${error.hint}` : String(error) });
    return z.NEVER;
  }
});

export const ShareLoginSchema = z.object({
  share: shareField,
  user: nameField('user name', 256),
  /** Carried to the service, never logged, printed or stored in a report. Empty: Kerberos with the person's own ticket. */
  password: z.string(),
  /** Kerberos where it can work (the default), or one of the two (src/smb/login-choice.ts). */
  auth: z.enum(['auto', 'kerberos', 'ntlm']).optional(),
  /** Where to connect instead of resolving the share's server name (smbclient's -I); the name still names the server for Kerberos. */
  address: nameField('address', 255).optional(),
  domain: nameField('domain', 256).optional(),
  /** `required`: sign every message, even where neither the server nor the profile asks for it. */
  signing: z.enum(['auto', 'required']).optional(),
  /** `required`: encrypt every message; `off`: stop with a clear error where the server or share requires encryption. */
  encryption: z.enum(['auto', 'required', 'off']).optional(),
});
/** A login as a front end sends it: the share as typed. */
export type ShareLogin = z.input<typeof ShareLoginSchema>;
/** A login as a service receives it: the share parsed. */
export type ParsedShareLogin = z.output<typeof ShareLoginSchema>;

/** Where a service connects: the share's parts, with the address the person gave to connect to instead of its name. */
export const shareTargetOf = (login: Pick<ParsedShareLogin, 'share' | 'address'>): SharePath => withAddress(login.share.path, login.address);

/** How a session logged on, as every result and report says it (src/smb/logon.ts). Absent in reports written before Kerberos. */
export const LoginUsedSchema = z.object({
  mechanism: z.enum(['kerberos', 'ntlmv2']),
  /** The Kerberos principal the ticket was for. */
  principal: z.string().max(512).optional(),
  /** Where NTLMv2 was used: why Kerberos was not. */
  whyNotKerberos: z.string().max(2000).optional(),
  /** Where NTLMv2 was used: the account its AUTHENTICATE message named, DOMAIN\\user (or the user alone). */
  account: z.string().max(600).optional(),
  /** The server logged the person on as a guest: no key, so nothing signed or sealed, and Windows 10/11 refuse such logons. */
  guest: z.boolean().optional(),
});
export type LoginUsedDto = z.infer<typeof LoginUsedSchema>;
