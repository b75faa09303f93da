// The page asks for nothing: no camera, microphone, notifications, geolocation,
// clipboard reads, MIDI, HID, serial or USB. Every permission request and
// every permission check is answered "no" (Electron's security checklist:
// handle session permission requests; the default grants them).

/** The part of Electron's Session this uses (a fake in the tests). */
export interface PermissionSession {
  setPermissionRequestHandler(handler: ((webContents: unknown, permission: string, callback: (granted: boolean) => void) => void) | null): void;
  setPermissionCheckHandler(handler: ((webContents: unknown, permission: string) => boolean) | null): void;
  setDevicePermissionHandler?(handler: ((details: unknown) => boolean) | null): void;
}

export function denyAllPermissions(session: PermissionSession): void {
  session.setPermissionRequestHandler((_webContents, _permission, callback) => callback(false));
  session.setPermissionCheckHandler(() => false);
  session.setDevicePermissionHandler?.(() => false);
}
