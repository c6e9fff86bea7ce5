import type { ServerResponse } from 'node:http';

/** Lets a procedure set its success status and headers whichever adapter runs it. */
export interface ResponseControl {
  setStatus(status: number): void;
  setHeader(name: string, value: string): void;
  appendCookie(serialized: string): void;
}

/** For the REST bridge and /trpc: collected, then handed back through `responseMeta`. */
export class BufferedResponse implements ResponseControl {
  status: number | undefined;
  readonly headers: Record<string, string> = {};
  readonly cookies: string[] = [];
  setStatus(status: number) {
    this.status = status;
  }
  setHeader(name: string, value: string) {
    this.headers[name] = value;
  }
  appendCookie(serialized: string) {
    this.cookies.push(serialized);
  }
}

/** For dashboard loaders calling procedures directly: headers go straight onto the response Remix will send. */
export class DirectResponse implements ResponseControl {
  constructor(private readonly res: ServerResponse) {}
  setStatus() {
    // The loader decides the page's status.
  }
  setHeader(name: string, value: string) {
    if (!this.res.headersSent) this.res.setHeader(name, value);
  }
  appendCookie(serialized: string) {
    if (!this.res.headersSent) this.res.appendHeader('Set-Cookie', serialized);
  }
}
