/**
 * The window's security settings (DESIGN §12), as plain functions over the few Electron objects they touch,
 * so tests can check them with fakes: web preferences, navigation and window.open blocking, permission
 * denial, and the CSP header on every response of the session.
 */
import { withCsp, type ResponseHeaders } from './csp.ts';

export function secureWebPreferences(preload: string, devTools: boolean) {
  return {
    preload,
    contextIsolation: true,
    sandbox: true,
    nodeIntegration: false,
    nodeIntegrationInWorker: false,
    nodeIntegrationInSubFrames: false,
    webSecurity: true,
    allowRunningInsecureContent: false,
    webviewTag: false,
    navigateOnDragDrop: false,
    // Middle-click (auxclick) on a link would ask for a new window: denied anyway, but never offered (Electronegativity).
    disableBlinkFeatures: 'Auxclick',
    safeDialogs: true,
    spellcheck: false,
    devTools,
  } as const;
}

interface PreventableEvent {
  preventDefault(): void;
}

/** The parts of `WebContents` hardened here. */
export interface WebContentsLike {
  on(event: 'will-navigate' | 'will-redirect', listener: (event: PreventableEvent & { url: string }) => void): unknown;
  on(event: 'will-attach-webview', listener: (event: PreventableEvent) => void): unknown;
  setWindowOpenHandler(handler: (details: { url: string }) => { action: 'deny' }): void;
}

/** Asks the user before an external link leaves the app; resolves true only on their explicit yes. */
export type ConfirmExternal = (url: string) => Promise<boolean>;

/** http(s) links only, of sane length: anything else (file:, javascript:, custom schemes) is never opened. */
export function isExternalLink(raw: string): boolean {
  if (raw.length > 2048) return false;
  try {
    const url = new URL(raw);
    return (url.protocol === 'https:' || url.protocol === 'http:') && url.hostname !== '';
  } catch {
    return false;
  }
}

/**
 * Blocks every navigation away from the loaded page and every new window. An http(s) link the page tried to
 * follow is offered to the user (one prompt at a time); only their click opens it, in the system browser.
 */
export function hardenWebContents(
  contents: WebContentsLike,
  confirmExternal: ConfirmExternal,
  openExternal: (url: string) => Promise<void>,
): void {
  let prompting = false;
  const offer = (url: string): void => {
    if (prompting || !isExternalLink(url)) return;
    prompting = true;
    confirmExternal(url)
      .then((yes) => (yes ? openExternal(url) : undefined))
      .catch(() => undefined)
      .finally(() => {
        prompting = false;
      });
  };
  contents.on('will-navigate', (event) => {
    event.preventDefault();
    offer(event.url);
  });
  contents.on('will-redirect', (event) => event.preventDefault());
  contents.on('will-attach-webview', (event) => event.preventDefault());
  contents.setWindowOpenHandler(({ url }) => {
    offer(url);
    return { action: 'deny' };
  });
}

/** The parts of `Session` configured here. */
export interface SessionLike {
  setPermissionRequestHandler(handler: (webContents: unknown, permission: string, callback: (granted: boolean) => void) => void): void;
  setPermissionCheckHandler(handler: (webContents: unknown, permission: string) => boolean): void;
  webRequest: {
    onHeadersReceived(
      listener: (
        details: { responseHeaders?: ResponseHeaders },
        callback: (response: { responseHeaders: Record<string, string[]> }) => void,
      ) => void,
    ): void;
  };
}

/** Denies every permission request and check, and puts our CSP on every response the session receives. */
export function hardenSession(session: SessionLike): void {
  session.setPermissionRequestHandler((_contents, _permission, callback) => callback(false));
  session.setPermissionCheckHandler(() => false);
  session.webRequest.onHeadersReceived((details, callback) => callback({ responseHeaders: withCsp(details.responseHeaders) }));
}
