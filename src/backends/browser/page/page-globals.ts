/**
 * The few browser globals the device page uses, typed here: the project compiles against
 * Node's types only (no DOM library), and these are all the page needs of the DOM.
 */
export interface PageElement {
  textContent: string | null;
  hidden: boolean;
  value?: string;
  append(...nodes: (PageElement | string)[]): void;
  addEventListener(type: string, listener: (event: { preventDefault(): void }) => void): void;
}

export interface PageGlobals {
  readonly navigator: {
    readonly gpu?: GPU;
    readonly userAgent: string;
    readonly hardwareConcurrency?: number;
    readonly wakeLock?: { request(type: 'screen'): Promise<unknown> };
  };
  readonly location: { readonly hash: string; readonly origin: string };
  readonly document: {
    getElementById(id: string): PageElement | null;
    createElement(tag: string): PageElement;
    readonly visibilityState?: string;
  };
  readonly isSecureContext: boolean;
  readonly crossOriginIsolated?: boolean;
}

export const page = globalThis as unknown as PageGlobals;
