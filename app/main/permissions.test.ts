import { describe, expect, it } from 'vitest';
import type { PermissionSession } from './permissions.js';
import { denyAllPermissions } from './permissions.js';

type RequestHandler = NonNullable<Parameters<PermissionSession['setPermissionRequestHandler']>[0]>;
type CheckHandler = NonNullable<Parameters<PermissionSession['setPermissionCheckHandler']>[0]>;

describe('permissions', () => {
  it('refuses every request, check and device the page could ask for', () => {
    const seen: { request?: RequestHandler; check?: CheckHandler; device?: (details: unknown) => boolean } = {};
    denyAllPermissions({
      setPermissionRequestHandler: (handler) => handler && (seen.request = handler),
      setPermissionCheckHandler: (handler) => handler && (seen.check = handler),
      setDevicePermissionHandler: (handler) => handler && (seen.device = handler),
    });
    for (const permission of ['media', 'notifications', 'geolocation', 'clipboard-read', 'midiSysex', 'hid', 'serial', 'usb', 'openExternal']) {
      let granted: boolean | undefined;
      seen.request?.({}, permission, (answer: boolean) => (granted = answer));
      expect(granted, permission).toBe(false);
      expect(seen.check?.({}, permission), permission).toBe(false);
    }
    expect(seen.device?.({ deviceType: 'usb' })).toBe(false);
  });
});
