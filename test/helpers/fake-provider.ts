import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import sharp from 'sharp';

/** The colour of every staged picture the fakes draw: a stored output of this colour came from the provider. */
export const FAKE_COLOUR = { r: 190, g: 40, b: 150 };
/** The colour of the fakes' emptied rooms (asked with the declutter prompt). */
export const EMPTY_ROOM_COLOUR = { r: 60, g: 170, b: 90 };

/** A square-ish provider size, so fitting back to the photo must both resize and crop. */
export function fakePicture(width = 1024, height = 1024, colour = FAKE_COLOUR): Promise<Buffer> {
  return sharp({ create: { width, height, channels: 3, background: colour } })
    .png()
    .toBuffer();
}

/** Whether a prompt asks to empty the room (Roomstage's declutter prompt) rather than to stage it. */
export function asksToDeclutter(prompt: string): boolean {
  return /completely empty/i.test(prompt);
}

export interface FakeAnswer {
  status: number;
  headers?: Record<string, string>;
  body?: unknown;
}

export interface RecordedCall {
  method: string;
  path: string;
}

/** What the fake was asked to draw: the prompt, the negative prompt (when the protocol has one) and the seed. */
export interface Commission {
  prompt: string;
  negativePrompt?: string;
  seed?: number;
  /** The model asked (Replicate): the staging or the declutter model. */
  model?: string;
}

/**
 * The behaviour every fake provider shares: a local HTTP server, the calls it got, and switches a test flips to
 * make the provider slow (`delayMs` per picture), refusing (`refuse`), unreachable (`down`: connections are cut) or
 * answering the next requests with canned errors (`failNext`, e.g. 429 with Retry-After).
 */
export abstract class FakeProvider {
  url = '';
  delayMs = 0;
  refuse = false;
  down = false;
  readonly failNext: FakeAnswer[] = [];
  readonly calls: RecordedCall[] = [];
  readonly commissions: Commission[] = [];
  /** Pictures being drawn now, and the most drawn at once since the last reset. */
  drawing = 0;
  peakDrawing = 0;
  protected picture: Buffer = Buffer.alloc(0);
  protected emptyRoom: Buffer = Buffer.alloc(0);
  private server: Server | null = null;

  async start(): Promise<this> {
    this.picture = await fakePicture();
    this.emptyRoom = await fakePicture(1024, 1024, EMPTY_ROOM_COLOUR);
    this.server = createServer((req, res) => void this.handle(req, res));
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this;
  }

  async stop(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }

  reset(): void {
    this.delayMs = 0;
    this.refuse = false;
    this.down = false;
    this.failNext.length = 0;
    this.peakDrawing = 0;
  }

  /** Environment for a Roomstage server that uses this provider; `declutter: false` leaves decluttering unset. */
  abstract env(options?: { declutter?: boolean }): Record<string, string>;

  protected abstract route(method: string, url: URL, body: Buffer, req: IncomingMessage): Promise<FakeAnswer>;

  /** The picture the fake draws for a prompt: an empty room for a declutter prompt, else the staged colour. */
  protected pictureFor(prompt: string): Buffer {
    return asksToDeclutter(prompt) ? this.emptyRoom : this.picture;
  }

  /** Waits the picture's drawing time. */
  protected async draw(): Promise<void> {
    this.drawing += 1;
    this.peakDrawing = Math.max(this.peakDrawing, this.drawing);
    try {
      await new Promise((resolve) => setTimeout(resolve, this.delayMs));
    } finally {
      this.drawing -= 1;
    }
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    if (this.down) {
      req.socket.destroy();
      return;
    }
    const url = new URL(req.url ?? '/', this.url);
    this.calls.push({ method: req.method ?? 'GET', path: url.pathname });
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const canned = this.failNext.shift();
    const answer = canned ?? (await this.route(req.method ?? 'GET', url, Buffer.concat(chunks), req));
    if (res.destroyed) return;
    if (Buffer.isBuffer(answer.body)) {
      res.writeHead(answer.status, { 'content-type': 'image/png', ...answer.headers });
      res.end(answer.body);
      return;
    }
    res.writeHead(answer.status, { 'content-type': 'application/json', ...answer.headers });
    res.end(JSON.stringify(answer.body ?? {}));
  }

  /** Parses a multipart/form-data body as the provider would. */
  protected formOf(req: IncomingMessage, body: Buffer): Promise<FormData> {
    return new Request(this.url, {
      method: 'POST',
      headers: { 'content-type': String(req.headers['content-type']) },
      body: new Uint8Array(body),
    }).formData();
  }
}
