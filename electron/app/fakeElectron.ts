/**
 * Test double for the 'electron' module as the main process uses it: records what main.ts asks of Electron
 * (window options, handlers, protocol, menu) so tests can check it without an Electron binary. Use with
 * `vi.mock('electron', () => fakeElectron.module)`; `fakeElectron.ready()` lets `app.whenReady()` resolve.
 */
import { vi } from 'vitest';

type Listener = (...args: never[]) => unknown;

class Emitter {
  readonly listeners = new Map<string, Listener[]>();
  on(event: string, listener: Listener): this {
    this.listeners.set(event, [...(this.listeners.get(event) ?? []), listener]);
    return this;
  }
  once(event: string, listener: Listener): this {
    return this.on(event, listener);
  }
  emit(event: string, ...args: unknown[]): void {
    for (const l of this.listeners.get(event) ?? []) (l as (...a: unknown[]) => unknown)(...args);
  }
}

export class FakeWebContents extends Emitter {
  static nextId = 1;
  readonly id = FakeWebContents.nextId++;
  openHandler: ((details: { url: string }) => { action: string }) | null = null;
  readonly reload = vi.fn();
  setWindowOpenHandler(handler: (details: { url: string }) => { action: string }): void {
    this.openHandler = handler;
  }
}

/** Electron's Notification: records what was shown; `supported` as a desktop without a notification daemon would say. */
export class FakeNotification extends Emitter {
  static supported = true;
  static shown: FakeNotification[] = [];
  static isSupported(): boolean {
    return FakeNotification.supported;
  }
  constructor(readonly options: { title: string; body: string }) {
    super();
  }
  show(): void {
    FakeNotification.shown.push(this);
  }
}

export class FakeWindow extends Emitter {
  static all: FakeWindow[] = [];
  readonly webContents = new FakeWebContents();
  readonly loadURL = vi.fn(async (_url: string) => undefined);
  readonly setTitle = vi.fn();
  readonly setProgressBar = vi.fn();
  readonly show = vi.fn();
  readonly focus = vi.fn();
  readonly restore = vi.fn();
  constructor(readonly options: Record<string, unknown>) {
    super();
    FakeWindow.all.push(this);
  }
  isDestroyed(): boolean {
    return false;
  }
  isMinimized(): boolean {
    return false;
  }
}

export type HeadersListener = (
  details: { responseHeaders?: Record<string, string | string[]> },
  callback: (response: { responseHeaders: Record<string, string[]> }) => void,
) => void;

type RequestHandler = (wc: unknown, permission: string, cb: (granted: boolean) => void) => void;
type CheckHandler = (wc: unknown, permission: string) => boolean;

export interface FakeSession {
  permissionRequestHandler: RequestHandler | null;
  permissionCheckHandler: CheckHandler | null;
  headersListener: HeadersListener | null;
  setPermissionRequestHandler(h: RequestHandler): void;
  setPermissionCheckHandler(h: CheckHandler): void;
  webRequest: { onHeadersReceived(listener: HeadersListener): void };
}

function createFake() {
  let resolveReady: () => void = () => undefined;
  const readyPromise = new Promise<void>((r) => {
    resolveReady = r;
  });
  const app = Object.assign(new Emitter(), {
    isPackaged: false,
    userData: '',
    requestSingleInstanceLock: vi.fn(() => true),
    whenReady: () => readyPromise,
    quit: vi.fn(),
    exit: vi.fn(),
    getPath: vi.fn((_name: string) => app.userData),
    addRecentDocument: vi.fn(),
  });
  const ipcHandlers = new Map<string, (event: unknown, ...args: unknown[]) => unknown>();
  const session: FakeSession = {
    permissionRequestHandler: null,
    permissionCheckHandler: null,
    headersListener: null,
    setPermissionRequestHandler(h) {
      session.permissionRequestHandler = h;
    },
    setPermissionCheckHandler(h) {
      session.permissionCheckHandler = h;
    },
    webRequest: {
      onHeadersReceived(listener) {
        session.headersListener = listener;
      },
    },
  };
  const protocolHandlers = new Map<string, (request: Request) => Promise<Response>>();
  const menu = { template: null as unknown };
  const module = {
    app,
    BrowserWindow: FakeWindow,
    ipcMain: {
      handle: vi.fn((channel: string, listener: (event: unknown, ...args: unknown[]) => unknown) => {
        ipcHandlers.set(channel, listener);
      }),
      removeHandler: vi.fn((channel: string) => ipcHandlers.delete(channel)),
    },
    protocol: {
      registerSchemesAsPrivileged: vi.fn(),
      handle: vi.fn((scheme: string, handler: (request: Request) => Promise<Response>) => {
        protocolHandlers.set(scheme, handler);
      }),
    },
    session: { defaultSession: session },
    Menu: {
      buildFromTemplate: vi.fn((template: unknown) => {
        menu.template = template;
        return { template };
      }),
      setApplicationMenu: vi.fn(),
    },
    dialog: {
      showOpenDialog: vi.fn(async () => ({ canceled: true, filePaths: [] as string[] })),
      showMessageBox: vi.fn(async () => ({ response: 0 })),
      showErrorBox: vi.fn(),
    },
    shell: { openExternal: vi.fn(async () => undefined) },
    Notification: FakeNotification,
  };
  return { module, app, ipcHandlers, session, protocolHandlers, menu, ready: () => resolveReady() };
}

export type FakeElectron = ReturnType<typeof createFake>;
export const fakeElectron: FakeElectron = createFake();
