/**
 * Just enough of a DOM for react-dom/client to mount, update and unmount plain elements in a vitest run: the
 * project has no jsdom, and server rendering never runs error boundaries, so a test of what a boundary does
 * when its child throws needs the client renderer. Elements keep attributes, children and text; events and
 * layout are not modelled. Install it before react-dom/client is first imported (react-dom decides at load
 * whether it has a DOM).
 */

class MiniNode {
  childNodes: MiniNode[] = [];
  parentNode: MiniNode | null = null;
  constructor(
    readonly nodeType: number,
    readonly nodeName: string,
    readonly ownerDocument: MiniDocument | null,
  ) {}
  get firstChild(): MiniNode | null {
    return this.childNodes[0] ?? null;
  }
  get lastChild(): MiniNode | null {
    return this.childNodes.at(-1) ?? null;
  }
  get nextSibling(): MiniNode | null {
    const siblings = this.parentNode?.childNodes ?? [];
    return siblings[siblings.indexOf(this) + 1] ?? null;
  }
  get textContent(): string {
    return this.childNodes.map((c) => c.textContent).join('');
  }
  set textContent(value: string) {
    for (const c of this.childNodes) c.parentNode = null;
    this.childNodes = [];
    if (value !== '' && this.ownerDocument) this.appendChild(this.ownerDocument.createTextNode(value));
  }
  appendChild<T extends MiniNode>(child: T): T {
    return this.insertBefore(child, null);
  }
  insertBefore<T extends MiniNode>(child: T, before: MiniNode | null): T {
    child.parentNode?.removeChild(child);
    const at = before ? this.childNodes.indexOf(before) : -1;
    if (at < 0) this.childNodes.push(child);
    else this.childNodes.splice(at, 0, child);
    child.parentNode = this;
    return child;
  }
  removeChild<T extends MiniNode>(child: T): T {
    this.childNodes = this.childNodes.filter((c) => c !== child);
    child.parentNode = null;
    return child;
  }
  addEventListener(): void {}
  removeEventListener(): void {}
}

class MiniText extends MiniNode {
  constructor(
    public nodeValue: string,
    doc: MiniDocument,
  ) {
    super(3, '#text', doc);
  }
  override get textContent(): string {
    return this.nodeValue;
  }
  override set textContent(value: string) {
    this.nodeValue = value;
  }
  get data(): string {
    return this.nodeValue;
  }
  set data(value: string) {
    this.nodeValue = value;
  }
}

class MiniElement extends MiniNode {
  readonly attributes = new Map<string, string>();
  readonly style: Record<string, string> & { setProperty(name: string, value: string): void } = {
    setProperty(name: string, value: string) {
      this[name] = value;
    },
  } as Record<string, string> & { setProperty(name: string, value: string): void };
  readonly namespaceURI = 'http://www.w3.org/1999/xhtml';
  constructor(tag: string, doc: MiniDocument) {
    super(1, tag.toUpperCase(), doc);
  }
  get tagName(): string {
    return this.nodeName;
  }
  setAttribute(name: string, value: string): void {
    this.attributes.set(name, String(value));
  }
  getAttribute(name: string): string | null {
    return this.attributes.get(name) ?? null;
  }
  hasAttribute(name: string): boolean {
    return this.attributes.has(name);
  }
  removeAttribute(name: string): void {
    this.attributes.delete(name);
  }
  /** Elements in this subtree, this one first, for tests to look things up by attribute. */
  *walk(): Generator<MiniElement> {
    yield this;
    for (const c of this.childNodes) if (c instanceof MiniElement) yield* c.walk();
  }
}

class MiniDocument extends MiniNode {
  readonly documentElement: MiniElement;
  readonly head: MiniElement;
  readonly body: MiniElement;
  constructor() {
    super(9, '#document', null);
    this.documentElement = this.createElement('html');
    this.head = this.documentElement.appendChild(this.createElement('head'));
    this.body = this.documentElement.appendChild(this.createElement('body'));
    this.appendChild(this.documentElement);
  }
  createElement(tag: string): MiniElement {
    return new MiniElement(tag, this);
  }
  createElementNS(_ns: string, tag: string): MiniElement {
    return new MiniElement(tag, this);
  }
  createTextNode(text: string): MiniText {
    return new MiniText(text, this);
  }
  createComment(): MiniNode {
    return new MiniNode(8, '#comment', this);
  }
  get activeElement(): MiniElement {
    return this.body;
  }
  querySelectorAll(): MiniElement[] {
    return [];
  }
}

export type { MiniElement };

let doc: MiniDocument | null = null;

/** A new empty element in the minimal document's body (installing the document first): one per React root. */
export function freshContainer(): MiniElement {
  doc ??= installMinimalDom();
  return doc.body.appendChild(doc.createElement('div'));
}

/** Puts a fresh document (and window) on globalThis. */
function installMinimalDom(): MiniDocument {
  const d = new MiniDocument();
  const g = globalThis as unknown as Record<string, unknown>;
  g.document = d;
  g.window = globalThis;
  // react-dom looks for focus inside iframes with `instanceof window.HTMLIFrameElement`; there are none here.
  g.HTMLIFrameElement ??= class {};
  g.navigator ??= { userAgent: 'node' };
  g.IS_REACT_ACT_ENVIRONMENT = true;
  g.requestAnimationFrame ??= (fn: () => void) => setTimeout(fn, 0);
  g.cancelAnimationFrame ??= (id: ReturnType<typeof setTimeout>) => clearTimeout(id);
  return d;
}
