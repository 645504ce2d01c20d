import { describe, expect, it } from 'vitest';
import { CSP, CSP_DIRECTIVES, withCsp } from './csp.ts';
import { isExternalLink, secureWebPreferences } from './security.ts';

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
