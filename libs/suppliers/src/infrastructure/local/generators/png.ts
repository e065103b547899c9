import { PNG } from 'pngjs';
import { prng, seedOf, sinTurns } from './random';

export interface ImageParams {
  readonly prompt: string;
  readonly negative_prompt?: string;
  readonly size?: string;
  readonly seed?: number;
  readonly asset_ids?: readonly string[];
}

export function parseSize(size: string | undefined): { width: number; height: number } {
  const m = /^(\d{1,4})x(\d{1,4})$/.exec(size ?? '');
  if (!m) return { width: 1024, height: 1024 };
  const clamp = (n: number) => Math.max(16, Math.min(4096, n));
  return { width: clamp(Number(m[1])), height: clamp(Number(m[2])) };
}

type Rgb = [number, number, number];

function hsl(h: number, s: number, l: number): Rgb {
  const a = s * Math.min(l, 1 - l);
  const f = (n: number) => {
    const k = (n + h * 12) % 12;
    return Math.round(255 * (l - a * Math.max(-1, Math.min(k - 3, 9 - k, 1))));
  };
  return [f(0), f(8), f(4)];
}

/**
 * The built-in image model: a real PNG (8-bit RGBA, opaque) of the requested size whose picture
 * (palette, gradient, shapes) follows from the prompt, negative prompt, seed, reference
 * asset ids and the image's index within the task. Same input, same bytes.
 */
export function renderPng(params: ImageParams, index = 0): Buffer {
  const { width, height } = parseSize(params.size);
  const rand = prng(seedOf('image', params.prompt, params.negative_prompt ?? '', params.seed ?? null, params.asset_ids ?? [], width, height, index));
  const hue = rand();
  const bgA = hsl(hue, 0.55 + rand() * 0.3, 0.35 + rand() * 0.2);
  const bgB = hsl((hue + 0.3 + rand() * 0.4) % 1, 0.5 + rand() * 0.4, 0.55 + rand() * 0.25);
  const angle = rand() * Math.PI * 2;
  const ax = Math.cos(angle);
  const ay = Math.sin(angle);
  const waves = 2 + Math.floor(rand() * 10);
  const shapes = Array.from({ length: 3 + Math.floor(rand() * 5) }, () => ({
    cx: rand() * width,
    cy: rand() * height,
    r: (0.05 + rand() * 0.25) * Math.min(width, height),
    color: hsl((hue + rand()) % 1, 0.6 + rand() * 0.4, 0.3 + rand() * 0.5),
    alpha: 0.35 + rand() * 0.5,
    square: rand() < 0.35,
  }));
  const png = new PNG({ width, height });
  const data = png.data;
  const diag = Math.abs(ax) * width + Math.abs(ay) * height;
  // Plain arithmetic only inside the pixel loop (see random.ts).
  const n = shapes.length;
  const sx = shapes.map((s) => s.cx);
  const sy = shapes.map((s) => s.cy);
  const sr = shapes.map((s) => s.r);
  const sr2 = shapes.map((s) => s.r * s.r);
  const sa = shapes.map((s) => s.alpha);
  const sq = shapes.map((s) => s.square);
  const sc = shapes.map((s) => s.color);
  for (let y = 0; y < height; y++) {
    const yPart = (y - height / 2) * ay;
    for (let x = 0; x < width; x++) {
      let t = ((x - width / 2) * ax + yPart) / diag + 0.5;
      t = t < 0 ? 0 : t > 1 ? 1 : t;
      const ripple = 20 * sinTurns(t * waves + (y / height) * 0.5 + 1);
      let r = bgA[0] + (bgB[0] - bgA[0]) * t + ripple;
      let g = bgA[1] + (bgB[1] - bgA[1]) * t + ripple;
      let b = bgA[2] + (bgB[2] - bgA[2]) * t + ripple;
      for (let k = 0; k < n; k++) {
        const dx = x - sx[k];
        const dy = y - sy[k];
        const inside = sq[k] ? dx < sr[k] && dx > -sr[k] && dy < sr[k] && dy > -sr[k] : dx * dx + dy * dy < sr2[k];
        if (inside) {
          const a = sa[k];
          const c = sc[k];
          r = r * (1 - a) + c[0] * a;
          g = g * (1 - a) + c[1] * a;
          b = b * (1 - a) + c[2] * a;
        }
      }
      const i = (y * width + x) * 4;
      data[i] = r < 0 ? 0 : r > 255 ? 255 : r;
      data[i + 1] = g < 0 ? 0 : g > 255 ? 255 : g;
      data[i + 2] = b < 0 ? 0 : b > 255 ? 255 : b;
      data[i + 3] = 255;
    }
  }
  // RGBA with the "sub" filter: the other filters and colour conversion are far slower in pngjs.
  return PNG.sync.write(png, { colorType: 6, deflateLevel: 6, filterType: 1 });
}
