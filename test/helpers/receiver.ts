import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ReceivedRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  /** The exact bytes as they arrived, for signature checks. */
  rawBody: Buffer;
  receivedAt: number;
  /** What the receiver answered (null when it hung up or never answered). */
  answeredWith: number | null;
}

export type ReceiverMode =
  | { kind: 'ok'; status?: number }
  | { kind: 'fail'; status?: number; headers?: Record<string, string> }
  | { kind: 'hang' }
  | { kind: 'redirect'; location: string };

/**
 * A real HTTP receiver on 127.0.0.1:<random port> that records every request. It can fail the first N requests
 * (`failFirst`), or switch mode at any time (answer 2xx, fail with 500, hang without answering, redirect).
 */
export class WebhookReceiver {
  readonly requests: ReceivedRequest[] = [];
  mode: ReceiverMode = { kind: 'ok' };
  private failuresLeft = 0;
  private server!: Server;
  private hanging = new Set<ServerResponse>();
  private waiters: Array<() => void> = [];
  url = '';

  static async start(): Promise<WebhookReceiver> {
    const receiver = new WebhookReceiver();
    await receiver.listen();
    return receiver;
  }

  private async listen() {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        const entry: ReceivedRequest = {
          method: req.method ?? '',
          path: req.url ?? '',
          headers: req.headers,
          rawBody: Buffer.concat(chunks),
          receivedAt: Date.now(),
          answeredWith: null,
        };
        this.requests.push(entry);
        const mode: ReceiverMode = this.failuresLeft > 0 ? { kind: 'fail' } : this.mode;
        if (this.failuresLeft > 0) this.failuresLeft -= 1;
        if (mode.kind === 'hang') {
          this.hanging.add(res);
          res.on('close', () => this.hanging.delete(res));
        } else if (mode.kind === 'redirect') {
          entry.answeredWith = 302;
          res.writeHead(302, { location: mode.location }).end();
        } else {
          const status = mode.status ?? (mode.kind === 'ok' ? 200 : 500);
          entry.answeredWith = status;
          const extra = mode.kind === 'fail' ? mode.headers : undefined;
          res.writeHead(status, { 'content-type': 'text/plain', ...extra }).end(mode.kind === 'ok' ? 'ok' : 'nope');
        }
        for (const wake of this.waiters.splice(0)) wake();
      });
    });
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/hooks`;
  }

  /** The next `n` requests get a 500, then the current mode applies again. */
  failFirst(n: number) {
    this.failuresLeft = n;
  }

  /** Requests answered with a 2xx. */
  accepted(): ReceivedRequest[] {
    return this.requests.filter((r) => r.answeredWith !== null && r.answeredWith >= 200 && r.answeredWith < 300);
  }

  bodyOf(request: ReceivedRequest): any {
    return JSON.parse(request.rawBody.toString('utf8'));
  }

  /** Resolves once `predicate` holds over the requests so far; rejects after `timeoutMs`. */
  async waitFor(predicate: (requests: ReceivedRequest[]) => boolean, timeoutMs = 10_000): Promise<ReceivedRequest[]> {
    const deadline = Date.now() + timeoutMs;
    while (!predicate(this.requests)) {
      const left = deadline - Date.now();
      if (left <= 0)
        throw new Error(`receiver: condition not met within ${timeoutMs} ms (${this.requests.length} requests so far)`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, Math.min(left, 200));
        this.waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
    return this.requests;
  }

  /** Hangs up on every request left hanging (the sender sees a reset connection). */
  dropHanging() {
    for (const res of this.hanging) res.destroy();
    this.hanging.clear();
  }

  async close() {
    for (const res of this.hanging) res.destroy();
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}
