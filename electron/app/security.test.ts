import fc from 'fast-check';
import { describe, expect, it, vi } from 'vitest';
import { CSP, CSP_DIRECTIVES, withCsp } from './csp.ts';
import { hardenSession, hardenWebContents, isExternalLink, secureWebPreferences, type SessionLike, type WebContentsLike } from './security.ts';

describe('window security settings', () => {
  it('isolates and sandboxes the renderer, with no Node anywhere', () => {
    const prefs = secureWebPreferences('/app/dist/electron/preload.cjs', false);
    expect(prefs).toMatchObject({
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
      nodeIntegrationInWorker: false,
      nodeIntegrationInSubFrames: false,
      webSecurity: true,
      allowRunningInsecureContent: false,
      webviewTag: false,
      devTools: false,
      disableBlinkFeatures: 'Auxclick',
    });
  });

  it('offers only http(s) links to the system browser', () => {
    expect(isExternalLink('https://arxiv.org/abs/1')).toBe(true);
    expect(isExternalLink('http://example.com')).toBe(true);
    for (const url of ['file:///etc/passwd', 'javascript:alert(1)', 'app://routelens/', 'smb://host/x', 'https://', 'nonsense']) {
      expect(isExternalLink(url)).toBe(false);
    }
    expect(isExternalLink(`https://example.com/${'a'.repeat(3000)}`)).toBe(false);
  });

  it('has a CSP without unsafe-eval or unsafe-inline, locked to its own origin', () => {
    expect(CSP_DIRECTIVES[0]).toBe("default-src 'self'");
    expect(CSP).not.toMatch(/unsafe-/);
    expect(CSP).toContain("object-src 'none'");
    expect(CSP).toContain("frame-ancestors 'none'");
    expect(withCsp(undefined)).toEqual({ 'Content-Security-Policy': [CSP] });
  });
});

/** URLs a hostile page or log could produce: real web URLs, other schemes, our own origin, junk. */
const anyUrl = fc.oneof(
  fc.webUrl({ withQueryParameters: true, withFragments: true }),
  fc.constantFrom(
    'javascript:alert(1)', 'JaVaScRiPt:alert(1)', ' javascript:alert(1)', 'data:text/html,<script>alert(1)</script>', 'file:///etc/passwd',
    'app://routelens/index.html', 'about:blank', 'chrome://settings', 'smb://host/share', 'vbscript:msgbox(1)', 'http://', '//evil.example/',
    `https://example.com/${'a'.repeat(3000)}`, 'https://user:pass@example.com/', 'http://[::1]/', 'https://xn--80ak6aa92e.com/',
  ),
  fc.string({ maxLength: 200 }),
);

describe('navigation and new windows (fuzzed URLs)', () => {
  function harden(confirm: boolean) {
    const listeners = new Map<string, (event: { preventDefault(): void; url?: string }) => void>();
    let openHandler: ((details: { url: string }) => { action: 'deny' }) | null = null;
    const contents: WebContentsLike = {
      on: ((event: string, listener: (e: { preventDefault(): void; url?: string }) => void) => listeners.set(event, listener)) as WebContentsLike['on'],
      setWindowOpenHandler: (h) => {
        openHandler = h;
      },
    };
    const openExternal = vi.fn(async (_url: string) => undefined);
    const asked = vi.fn(async (_url: string) => confirm);
    hardenWebContents(contents, asked, openExternal);
    return { listeners, open: (url: string) => openHandler?.({ url }), openExternal, asked };
  }

  it('denies every window.open and blocks every navigation and redirect, whatever the URL', async () => {
    await fc.assert(
      fc.asyncProperty(anyUrl, fc.boolean(), async (url, yes) => {
        const h = harden(yes);
        expect(h.open(url)).toEqual({ action: 'deny' });
        for (const event of ['will-navigate', 'will-redirect'] as const) {
          const e = { url, preventDefault: vi.fn() };
          h.listeners.get(event)?.(e);
          expect(e.preventDefault).toHaveBeenCalled();
        }
        await new Promise((r) => setTimeout(r, 0));
        // Only an http(s) link, and only after the user said yes, reaches the system browser; nothing else is even offered.
        for (const [u] of h.openExternal.mock.calls) {
          expect(yes).toBe(true);
          expect(isExternalLink(u)).toBe(true);
        }
        for (const [u] of h.asked.mock.calls) expect(/^https?:$/.test(new URL(u).protocol)).toBe(true);
        if (!isExternalLink(url)) expect(h.asked).not.toHaveBeenCalled();
      }),
      { seed: 20_260_508, numRuns: 300 },
    );
  });

  it('denies every permission, whatever is asked', () => {
    let request: ((wc: unknown, permission: string, cb: (granted: boolean) => void) => void) | null = null;
    let check: ((wc: unknown, permission: string) => boolean) | null = null;
    const session: SessionLike = {
      setPermissionRequestHandler: (h) => void (request = h),
      setPermissionCheckHandler: (h) => void (check = h),
      webRequest: { onHeadersReceived: () => undefined },
    };
    hardenSession(session);
    fc.assert(
      fc.property(fc.oneof(fc.constantFrom('media', 'geolocation', 'notifications', 'clipboard-read', 'clipboard-sanitized-write', 'openExternal', 'fullscreen', 'hid', 'serial', 'usb', 'fileSystem'), fc.string()), (permission) => {
        const cb = vi.fn();
        request?.({}, permission, cb);
        expect(cb).toHaveBeenCalledWith(false);
        expect(check?.({}, permission)).toBe(false);
      }),
      { seed: 20_260_508, numRuns: 200 },
    );
  });
});
