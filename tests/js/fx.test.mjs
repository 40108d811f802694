// tandem.fx: raw Q16.16 arithmetic through the module, checked against exact arithmetic
// done here in BigInt and against the properties the core promises (tests/core has the
// exhaustive accuracy checks; these prove the binding passes values through untouched).
import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import { loadTandem } from './support.mjs';

let fx;
before(async () => { ({ fx } = await loadTandem()); });

const INT32_MIN = -(2 ** 31);
const INT32_MAX = 2 ** 31 - 1;
const sat = (v) => (v > INT32_MAX ? INT32_MAX : v < INT32_MIN ? INT32_MIN : v);

// Round-to-nearest-even of n / d for BigInts, d > 0.
function divRoundEven(n, d) {
  let q = n / d;
  let r = n % d;
  if (r < 0n) { q -= 1n; r += d; }
  if (2n * r > d || (2n * r === d && (q & 1n) === 1n)) q += 1n;
  return q;
}

const samples = [0, 1, -1, 65536, -65536, 98304, -98304, 12345678, -12345678, INT32_MAX, INT32_MIN,
  0x7fff0000, -0x7fff0000, 3, 32768, 205887, 411775, 7, -7, 1 << 20, -(1 << 20)];

describe('fx', () => {
  test('constants are the raw values of 1, the extremes and one LSB', () => {
    assert.equal(fx.ONE, 65536);
    assert.equal(fx.MIN, INT32_MIN);
    assert.equal(fx.MAX, INT32_MAX);
    assert.equal(fx.EPSILON, 1);
  });

  test('fromUnits rounds a number of units to the nearest raw value, halves away from zero, and saturates', () => {
    for (const [units, expected] of [[1.5, 98304], [-1.5, -98304], [0, 0], [1 / 131072, 1], [-1 / 131072, -1],
      [3 / 131072, 2], [1 / 262144, 0], [100.25, 6569984], [40000, INT32_MAX], [-40000, INT32_MIN]]) {
      assert.equal(fx.fromUnits(units), expected, String(units));
    }
    assert.throws(() => fx.fromUnits(NaN), RangeError);
    assert.throws(() => fx.fromUnits(Infinity), RangeError);
    assert.throws(() => fx.fromUnits('1'), TypeError);
  });

  test('fromInt scales by 2^16 and saturates outside the integer range', () => {
    assert.equal(fx.fromInt(3), 3 * 65536);
    assert.equal(fx.fromInt(-32768), INT32_MIN);
    assert.equal(fx.fromInt(40000), INT32_MAX);
    assert.equal(fx.fromInt(-40000), INT32_MIN);
  });

  test('add, sub, mul and div equal exact arithmetic rounded to nearest even, saturated', () => {
    for (const a of samples) {
      for (const b of samples) {
        assert.equal(fx.add(a, b), sat(a + b), `add ${a} ${b}`);
        assert.equal(fx.sub(a, b), sat(a - b), `sub ${a} ${b}`);
        const product = divRoundEven(BigInt(a) * BigInt(b), 65536n);
        assert.equal(fx.mul(a, b), sat(Number(product)), `mul ${a} ${b}`);
        if (b !== 0) {
          const sign = (a < 0) !== (b < 0) ? -1n : 1n;
          const q = divRoundEven(BigInt(Math.abs(a)) * 65536n, BigInt(Math.abs(b))) * sign;
          assert.equal(fx.div(a, b), sat(Number(q)), `div ${a} ${b}`);
        }
      }
    }
  });

  test('division by zero saturates toward the sign of the dividend, and 0 / 0 is 0', () => {
    assert.equal(fx.div(fx.ONE, 0), INT32_MAX);
    assert.equal(fx.div(-fx.ONE, 0), INT32_MIN);
    assert.equal(fx.div(0, 0), 0);
  });

  test('sqrt is correctly rounded and returns 0 for negative input', () => {
    for (const a of [0, 1, 2, 65536, 131072, 4 * 65536, 12345678, INT32_MAX]) {
      const exact = Math.sqrt(a * 65536);
      assert.ok(Math.abs(fx.sqrt(a) - exact) <= 0.5 + 1e-9, `sqrt(${a}) = ${fx.sqrt(a)}, exact ${exact}`);
    }
    assert.equal(fx.sqrt(fx.fromInt(4)), fx.fromInt(2));
    assert.equal(fx.sqrt(-65536), 0);
  });

  test('trigonometry is within one LSB of the double reference and keeps its symmetries', () => {
    const lsb = (got, exact) => Math.abs(got - exact * 65536);
    for (let raw = -411775 * 3; raw <= 411775 * 3; raw += 9973) {
      const x = raw / 65536;
      assert.ok(lsb(fx.sin(raw), Math.sin(x)) <= 1.0001, `sin ${raw}`);
      assert.ok(lsb(fx.cos(raw), Math.cos(x)) <= 1.0001, `cos ${raw}`);
      assert.equal(fx.sin(-raw), -fx.sin(raw));
      assert.equal(fx.cos(-raw), fx.cos(raw));
      assert.ok(lsb(fx.atan(raw), Math.atan(x)) <= 1.0001, `atan ${raw}`);
    }
    for (let raw = -65536; raw <= 65536; raw += 997) {
      const x = raw / 65536;
      assert.ok(lsb(fx.asin(raw), Math.asin(x)) <= 1.0001, `asin ${raw}`);
      assert.ok(lsb(fx.acos(raw), Math.acos(x)) <= 1.0001, `acos ${raw}`);
    }
    assert.equal(fx.asin(2 * 65536), fx.asin(65536), 'asin clamps to [-1, 1]');
    assert.equal(fx.atan2(0, 0), 0);
    assert.ok(lsb(fx.atan2(65536, -65536), Math.atan2(1, -1)) <= 1.0001);
  });

  test('exp and log match the double reference and keep their domain rules', () => {
    for (let raw = -5 * 65536; raw <= 65536 - 1; raw += 4099) {
      assert.ok(Math.abs(fx.exp(raw) - Math.exp(raw / 65536) * 65536) <= 1.0001, `exp ${raw}`);
    }
    assert.equal(fx.exp(fx.fromInt(20)), INT32_MAX, 'exp saturates');
    assert.ok(fx.exp(INT32_MIN) >= 0, 'exp is never negative');
    for (let raw = 655; raw < 100 * 65536; raw += 65537) {
      assert.ok(Math.abs(fx.log(raw) - Math.log(raw / 65536) * 65536) <= 1.0001, `log ${raw}`);
    }
    assert.equal(fx.log(0), INT32_MIN);
    assert.equal(fx.log(-5), INT32_MIN);
  });

  test('toString gives the shortest decimal and fromString reads it back exactly', () => {
    assert.equal(fx.toString(-98304), '-1.5');
    assert.equal(fx.toString(fx.fromInt(3)), '3');
    assert.equal(fx.fromString('-1.5'), -98304);
    assert.equal(fx.fromString('+2'), 131072);
    for (let raw = INT32_MIN; raw < INT32_MAX - 40000000; raw += 39916801) {
      assert.equal(fx.fromString(fx.toString(raw)), raw, `round trip of ${raw}`);
    }
    assert.equal(fx.toNumber(-98304), -1.5);
  });

  test('a malformed argument throws a TypeError or RangeError naming it, and fx keeps working', () => {
    assert.throws(() => fx.add('1', 2), { name: 'TypeError', message: /fx\.add: a must be a number/ });
    assert.throws(() => fx.mul(1, 0.5), { name: 'RangeError', message: /fx\.mul: b must be an integer/ });
    assert.throws(() => fx.sqrt(2 ** 31), { name: 'RangeError', message: /fx\.sqrt: a/ });
    assert.throws(() => fx.sin(NaN), { name: 'RangeError' });
    assert.throws(() => fx.fromString(12), { name: 'TypeError' });
    assert.throws(() => fx.fromString('1e3'), { name: 'RangeError', message: /fx\.fromString/ });
    assert.throws(() => fx.fromString('40000'), { name: 'RangeError' });
    assert.equal(fx.add(1, 2), 3);
  });
});
