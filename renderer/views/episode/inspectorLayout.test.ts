import { describe, expect, it } from 'vitest';
import { inspectorLayout } from './inspectorLayout.ts';

describe('inspectorLayout', () => {
  it('starts compact on a short window and full on a tall one, the debugger and what-if closed', () => {
    expect(inspectorLayout({}, { width: 1024, height: 700 })).toEqual({ header: 'compact', timeline: 'compact', debuggerOpen: false, whatIfOpen: false });
    expect(inspectorLayout({}, { width: 1280, height: 720 })).toEqual({ header: 'compact', timeline: 'compact', debuggerOpen: false, whatIfOpen: false });
    expect(inspectorLayout({}, { width: 1440, height: 900 })).toEqual({ header: 'full', timeline: 'full', debuggerOpen: false, whatIfOpen: false });
  });

  it('keeps what the user chose whatever the window', () => {
    const chosen = { header: 'full' as const, timeline: 'compact' as const, debuggerOpen: true, whatIfOpen: true };
    expect(inspectorLayout(chosen, { width: 1024, height: 700 })).toEqual(chosen);
    expect(inspectorLayout({ debuggerOpen: false }, { width: 1920, height: 1200 }).debuggerOpen).toBe(false);
    expect(inspectorLayout({ header: 'compact', whatIfOpen: true }, { width: 1920, height: 1200 })).toEqual({ header: 'compact', timeline: 'full', debuggerOpen: false, whatIfOpen: true });
  });
});
