// tandem.ValueNoise is the core's ValueNoise: the golden samples of the C++ unit test
// (tests/core/noise_test.cpp, seed 1234) come out of the module bit for bit, in both forms.
import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import { loadTandem } from './support.mjs';

let tandem;
before(async () => { tandem = await loadTandem(); });

// A C hex float literal's value, e.g. '0x1.d1ca0cp-1'.
function hexFloat(text) {
  const [, mantissa, exponent] = /^0x([0-9a-f.]+)p(-?\d+)$/.exec(text);
  const [whole, fraction = ''] = mantissa.split('.');
  return (parseInt(whole + fraction, 16) / 16 ** fraction.length) * 2 ** Number(exponent);
}
const f32 = Math.fround;

describe('ValueNoise', () => {
  test('corner and cornerFx reproduce the core\'s golden vectors', () => {
    const noise = new tandem.ValueNoise(1234);
    const golden = ['0x1.d1ca0cp-1', '0x1.428ee8p-3', '0x1.182aa6p-1', '0x1.ec5a2p-3'].map(hexFloat);
    const raw = [59621, 10321, 35861, 15755];
    for (let i = -1; i < 3; ++i) {
      assert.equal(noise.corner(i, 2 * i, 0), golden[i + 1], `corner(${i}, ${2 * i})`);
      assert.equal(noise.cornerFx(i, 2 * i, 0), raw[i + 1], `cornerFx(${i}, ${2 * i})`);
    }
  });

  test('octave and octaveFx reproduce the core\'s golden vectors', () => {
    const noise = new tandem.ValueNoise(1234n);
    const golden = ['0x1.1e2c7cp-1', '0x1.055a98p-1', '0x1.ef728p-2', '0x1.e727p-2', '0x1.ce1f82p-2'].map(hexFloat);
    const raw = [36628, 33452, 31707, 31176, 29574];
    for (let i = 0; i < 5; ++i) {
      // The C++ computes x and z in f32: 0.37f * i - 1.1f and 2.5f + 0.71f * i.
      const x = f32(f32(f32(0.37) * i) - f32(1.1));
      const z = f32(2.5 + f32(f32(0.71) * i));
      assert.equal(noise.octave(x, z, 4, 1), golden[i], `octave ${i}`);
      assert.equal(noise.octaveFx(24248 * i - 72090, 163840 + 46531 * i, 4 * 65536, 1), raw[i], `octaveFx ${i}`);
    }
  });

  test('the seed is a value: equal seeds give equal noise, another seed other noise', () => {
    const a = new tandem.ValueNoise(2n ** 64n - 1n);
    assert.equal(a.seed, 2n ** 64n - 1n);
    assert.equal(new tandem.ValueNoise(2n ** 64n - 1n).octave(3.5, 7.25, 8, 2), a.octave(3.5, 7.25, 8, 2));
    assert.notEqual(new tandem.ValueNoise(7).corner(1, 1), new tandem.ValueNoise(8).corner(1, 1));
  });

  test('bad arguments throw naming the argument', () => {
    assert.throws(() => new tandem.ValueNoise(-1), { name: 'RangeError', message: /ValueNoise: seed/ });
    assert.throws(() => new tandem.ValueNoise('1'), TypeError);
    const noise = new tandem.ValueNoise(1);
    assert.throws(() => noise.corner(0.5, 0), { name: 'RangeError', message: /corner: xi/ });
    assert.throws(() => noise.octave('1', 0, 1), { name: 'TypeError', message: /octave: x/ });
    assert.throws(() => noise.octaveFx(0, 0, 1, -1), { name: 'RangeError', message: /octaveFx: octave/ });
    assert.ok(noise.octave(NaN, Infinity, -3) >= 0, 'non-finite floats are the core\'s to handle, and it does');
  });
});
