// The ground relief under the arena: a height grid sampled once from one relief function,
// then read by bilinear lookup (the renderer places every pellet on the ground each frame, so
// the relief function itself is never called per pellet). Presentation only: the simulation
// is flat and never reads this.

// The relief the page draws, in [0, 1) at arena point (x, z). The core's ValueNoise is the
// function this is meant to be (the same lattice hash on every build, with an f32 form made
// for renderers), but the ES module does not expose it yet: until it does, a smooth
// placeholder stands in. The swap is this one line once `tandem.ValueNoise` exists.
// `tandem` is null where the page has not loaded the module on its main thread (the session runs
// in its worker).
export const reliefFunction = (tandem, seed) => (tandem?.ValueNoise ? valueNoiseRelief(tandem, seed) : placeholderRelief(seed));

// Lattice spacings and weights of the octaves, in arena units: broad hills plus a little detail.
const OCTAVES = [{ lattice: 256, weight: 0.7 }, { lattice: 64, weight: 0.3 }];

function valueNoiseRelief(tandem, seed) {
  const noise = new tandem.ValueNoise(seed);
  return (x, z) => OCTAVES.reduce((sum, o, i) => sum + o.weight * noise.octave(x, z, o.lattice, i), 0);
}

// Sums of sines with phases from the seed: smooth, bounded to [0, 1), cheap.
function placeholderRelief(seed) {
  const phase = (k) => ((Math.imul(seed + 1, 2654435761 + k * 40503) >>> 0) / 2 ** 32) * 2 * Math.PI;
  const p = [0, 1, 2, 3, 4, 5].map(phase);
  return (x, z) => {
    const a = Math.sin(x / 163 + p[0]) * Math.cos(z / 191 + p[1]);
    const b = Math.sin((x + z) / 97 + p[2]) * 0.5;
    const c = Math.cos((x - z) / 53 + p[3]) * Math.sin(z / 41 + p[4]) * 0.25;
    return Math.min(0.999, Math.max(0, 0.5 + (a * 0.7 + b * 0.3 + c * 0.2) / 2.5));
  };
}

/** A square height grid over [0, size]^2: `cells` cells a side, heights in world units. */
export class HeightGrid {
  /**
   * @param {(x: number, z: number) => number} relief in [0, 1)
   * @param {number} size the arena's side in units
   * @param {number} cells grid cells per side
   * @param {number} amplitude height of relief 1.0, in units
   */
  constructor(relief, size, cells, amplitude) {
    this.size = size;
    this.cells = cells;
    this.step = size / cells;
    this.heights = new Float32Array((cells + 1) * (cells + 1));
    for (let j = 0; j <= cells; ++j) {
      for (let i = 0; i <= cells; ++i) {
        this.heights[j * (cells + 1) + i] = relief(i * this.step, j * this.step) * amplitude;
      }
    }
  }

  /** Height at (x, z), bilinear between grid points; points outside are clamped to the edge. */
  at(x, z) {
    const n = this.cells;
    const fx = Math.min(Math.max(x / this.step, 0), n);
    const fz = Math.min(Math.max(z / this.step, 0), n);
    const i = Math.min(Math.floor(fx), n - 1);
    const j = Math.min(Math.floor(fz), n - 1);
    const tx = fx - i;
    const tz = fz - j;
    const row = n + 1;
    const h = this.heights;
    const a = h[j * row + i] + (h[j * row + i + 1] - h[j * row + i]) * tx;
    const b = h[(j + 1) * row + i] + (h[(j + 1) * row + i + 1] - h[(j + 1) * row + i]) * tx;
    return a + (b - a) * tz;
  }
}
