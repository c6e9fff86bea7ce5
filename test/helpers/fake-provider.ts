import { createHash } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import sharp from 'sharp';

/** The colour of every staged picture the fakes draw: a stored output of this colour came from the provider. */
export const FAKE_COLOUR = { r: 190, g: 40, b: 150 };
/** The colour of the fakes' emptied rooms (asked with the declutter prompt). */
export const EMPTY_ROOM_COLOUR = { r: 60, g: 170, b: 90 };

/** A flat picture of one colour (what a provider that ignored the photo would draw). */
export function fakePicture(width = 1024, height = 1024, colour = FAKE_COLOUR): Promise<Buffer> {
  return sharp({ create: { width, height, channels: 3, background: colour } })
    .png()
    .toBuffer();
}

/**
 * Where the fakes draw their piece of furniture, as shares of the picture: a sofa-sized patch of the fake's colour
 * standing on the floor, low and in the middle (clear of the disclosure mark and QR code in the bottom corners).
 */
export const FAKE_PATCH = { left: 0.3, top: 0.62, width: 0.4, height: 0.26 };
/** Where the building-changing fake paints a window that the photo does not have (upper left of the wall). */
const FAKE_WINDOW = { left: 0.1, top: 0.08, width: 0.22, height: 0.26 };
/** Columns the fakes add on each side, so fitting back to the photo must resize and crop. */
const FAKE_MARGIN = 0.04;
const FAKE_LONG_EDGE = 1000;

/**
 * What the fakes draw, as a generative model keeps a room: the photo they were sent, with a piece of furniture in
 * `colour` on the floor (FAKE_PATCH), at about a megapixel and a little wider than the photo. With
 * `changeBuilding` it also paints a window on the wall where the photo has none: a model that changed the building.
 */
export async function fakeRendering(
  input: Buffer,
  options: { colour?: typeof FAKE_COLOUR; changeBuilding?: boolean } = {},
): Promise<Buffer> {
  const { r, g, b } = options.colour ?? FAKE_COLOUR;
  const resized = sharp(input).rotate().resize(FAKE_LONG_EDGE, FAKE_LONG_EDGE, { fit: 'inside' }).removeAlpha();
  const { width, height } = await resized
    .clone()
    .raw()
    .toBuffer({ resolveWithObject: true })
    .then(({ info }) => info);
  const box = (area: typeof FAKE_PATCH) => ({
    x: Math.round(area.left * width),
    y: Math.round(area.top * height),
    w: Math.round(area.width * width),
    h: Math.round(area.height * height),
  });
  const sofa = box(FAKE_PATCH);
  const shapes = [
    `<rect x="${sofa.x}" y="${sofa.y}" width="${sofa.w}" height="${sofa.h}" rx="${sofa.h / 10}" fill="rgb(${r},${g},${b})"/>`,
  ];
  if (options.changeBuilding) {
    const window = box(FAKE_WINDOW);
    const frame = Math.max(3, Math.round(window.w * 0.06));
    shapes.push(
      `<rect x="${window.x}" y="${window.y}" width="${window.w}" height="${window.h}" fill="#2e2a26"/>`,
      `<rect x="${window.x + frame}" y="${window.y + frame}" width="${window.w - 2 * frame}" height="${window.h - 2 * frame}" fill="#d6e8f7"/>`,
      `<rect x="${window.x + window.w / 2 - frame / 2}" y="${window.y}" width="${frame}" height="${window.h}" fill="#2e2a26"/>`,
    );
  }
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}">${shapes.join('')}</svg>`;
  const drawn = await resized
    .composite([{ input: Buffer.from(svg) }])
    .png()
    .toBuffer();
  const margin = Math.round(FAKE_MARGIN * width);
  return sharp(drawn)
    .extend({ left: margin, right: margin, background: { r: 128, g: 128, b: 128 } })
    .png()
    .toBuffer();
}

/** The mean colour (rounded) of FAKE_PATCH's middle in a stored output: the fake's colour when its picture got there. */
export async function patchColour(bytes: Buffer): Promise<number[]> {
  const { width = 0, height = 0 } = await sharp(bytes).metadata();
  const inset = 0.2;
  const region = {
    left: Math.round((FAKE_PATCH.left + inset * FAKE_PATCH.width) * width),
    top: Math.round((FAKE_PATCH.top + inset * FAKE_PATCH.height) * height),
    width: Math.round((1 - 2 * inset) * FAKE_PATCH.width * width),
    height: Math.round((1 - 2 * inset) * FAKE_PATCH.height * height),
  };
  // stats() would describe the whole input, not the extracted region: the mean is taken from the raw pixels.
  const { data, info } = await sharp(bytes).extract(region).removeAlpha().raw().toBuffer({ resolveWithObject: true });
  const sums = [0, 0, 0];
  for (let i = 0; i < data.length; i += info.channels) for (let c = 0; c < 3; c++) sums[c]! += data[i + c]!;
  return sums.map((sum) => Math.round(sum / (data.length / info.channels)));
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
  /** How many of the next pictures also change the building (a window appears): drives `structure_changed`. */
  changeBuilding = 0;
  /** Pictures drawn faithfully before `changeBuilding`'s turns start (a later variation can be made to fail). */
  changeBuildingAfter = 0;
  readonly failNext: FakeAnswer[] = [];
  readonly calls: RecordedCall[] = [];
  readonly commissions: Commission[] = [];
  /** Pictures being drawn now, and the most drawn at once since the last reset. */
  drawing = 0;
  peakDrawing = 0;
  /**
   * Draws each distinct picture once and answers repeats from memory. For benchmarks: a real provider draws on its
   * own GPUs, so the fake's drawing must not take the cores of the machine being measured.
   */
  memoize = false;
  private readonly memo = new Map<string, Promise<Buffer>>();
  private server: Server | null = null;

  async start(): Promise<this> {
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
    this.changeBuilding = 0;
    this.changeBuildingAfter = 0;
    this.failNext.length = 0;
    this.peakDrawing = 0;
  }

  /** Environment for a Roomstage server that uses this provider; `declutter: false` leaves decluttering unset. */
  abstract env(options?: { declutter?: boolean }): Record<string, string>;

  protected abstract route(method: string, url: URL, body: Buffer, req: IncomingMessage): Promise<FakeAnswer>;

  /**
   * The picture the fake draws of `input` for a prompt: the room with a patch of EMPTY_ROOM_COLOUR (bare floor) for a
   * declutter prompt, else with a patch of FAKE_COLOUR (a sofa). Takes one of `changeBuilding`'s turns at once, so
   * the pictures change the building in the order they were asked for.
   */
  protected pictureFor(prompt: string, input: Buffer): Promise<Buffer> {
    let changeBuilding = false;
    if (this.changeBuildingAfter > 0) this.changeBuildingAfter -= 1;
    else if (this.changeBuilding > 0) {
      changeBuilding = true;
      this.changeBuilding -= 1;
    }
    const colour = asksToDeclutter(prompt) ? EMPTY_ROOM_COLOUR : FAKE_COLOUR;
    if (!this.memoize) return fakeRendering(input, { colour, changeBuilding });
    const key = `${createHash('sha256').update(input).digest('hex')} ${colour === FAKE_COLOUR} ${changeBuilding}`;
    let picture = this.memo.get(key);
    if (!picture) {
      picture = fakeRendering(input, { colour, changeBuilding });
      this.memo.set(key, picture);
    }
    return picture;
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
