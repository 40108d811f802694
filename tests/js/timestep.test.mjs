// FixedTimestep and Periodic through the module: the steps elapsed milliseconds pay for,
// the carried remainder, the catch-up cap and its dropped ledger, and refusals as RangeError.
import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import { loadTandem } from './support.mjs';

let tandem;
before(async () => { tandem = await loadTandem(); });

describe('FixedTimestep', () => {
  test('fromHz(60) steps by 1/60 s to the nearest nanosecond', () => {
    const clock = tandem.FixedTimestep.fromHz(60);
    assert.equal(clock.stepMs, 16.666667);
    assert.equal(clock.maxFrameMs, 250);
    clock.delete();
  });

  test('elapsed time pays for whole steps and the remainder is carried, not lost', () => {
    const clock = new tandem.FixedTimestep(10);
    assert.equal(clock.advance(25), 2);
    assert.equal(clock.pendingMs(), 5);
    assert.equal(clock.alpha(), 0.5);
    assert.equal(clock.alphaRaw(), 32768);
    assert.equal(clock.advance(5), 1);
    assert.equal(clock.pendingMs(), 0);
    let steps = 0;
    for (let i = 0; i < 600; ++i) steps += clock.advance(1000 / 60);
    assert.equal(steps, 1000, 'ten seconds of 60 Hz frames pay for exactly a thousand 10 ms steps');
    clock.delete();
  });

  test('a resumed tab cannot dump a burst of steps: the cap drops the excess and counts it', () => {
    const clock = tandem.FixedTimestep.fromHz(60).withMaxFrameMs(100);
    assert.equal(clock.advance(5000), 5, '100 ms pays for five 16.67 ms steps');
    assert.ok(Math.abs(clock.droppedMs() - 4900) < 1e-6, `dropped ${clock.droppedMs()}`);
    clock.reset();
    assert.equal(clock.pendingMs(), 0);
    assert.ok(clock.droppedMs() > 0, 'reset keeps the dropped ledger');
    const capped = new tandem.FixedTimestep(10).withMaxSteps(3);
    assert.equal(capped.advance(200), 3);
    clock.delete();
    capped.delete();
  });

  test('negative and NaN elapsed time count as zero', () => {
    const clock = new tandem.FixedTimestep(10);
    assert.equal(clock.advance(-50), 0);
    assert.equal(clock.advance(NaN), 0);
    assert.equal(clock.pendingMs(), 0);
    clock.delete();
  });

  test('refusals throw RangeError with the core\'s reason, and wrong types TypeError', () => {
    assert.throws(() => new tandem.FixedTimestep(0), { name: 'RangeError', message: /new FixedTimestep: .*step/ });
    assert.throws(() => new tandem.FixedTimestep(-1), RangeError);
    assert.throws(() => tandem.FixedTimestep.fromHz(0), RangeError);
    assert.throws(() => tandem.FixedTimestep.fromHz(5000), RangeError);
    assert.throws(() => tandem.FixedTimestep.fromHz(60.5), RangeError);
    assert.throws(() => new tandem.FixedTimestep('16'), TypeError);
    const clock = tandem.FixedTimestep.fromHz(30);
    assert.throws(() => clock.withMaxFrameMs(0), RangeError);
    assert.throws(() => clock.setStepMs(0), RangeError);
    assert.throws(() => clock.advance('3'), TypeError);
    clock.setStepMs(20);
    assert.equal(clock.stepMs, 20);
    clock.delete();
  });

  test('a deleted clock throws on use, and deleting twice is harmless', () => {
    const clock = tandem.FixedTimestep.fromHz(60);
    clock.delete();
    clock.delete();
    assert.throws(() => clock.advance(16), /deleted/);
  });
});

describe('Periodic', () => {
  test('due fires at most once per call and advance counts every period', () => {
    const every = new tandem.Periodic(100);
    assert.equal(every.due(50), false);
    assert.equal(every.remainingMs(), 50);
    assert.equal(every.due(300), true);
    assert.equal(every.due(0), true, 'time beyond one interval is kept and repaid');
    assert.equal(every.advance(250), 4, "150 ms carried + 250 ms pays for four 100 ms periods");
    every.reset();
    assert.equal(every.pendingMs(), 0);
    assert.equal(every.intervalMs, 100);
    every.setIntervalMs(40);
    assert.equal(every.intervalMs, 40);
    assert.throws(() => every.setIntervalMs(0), RangeError);
    every.delete();
    const hz = tandem.Periodic.fromHz(30);
    assert.equal(hz.intervalMs, 33.333333);
    hz.delete();
    assert.throws(() => new tandem.Periodic(0), RangeError);
  });

  test('frameBudgetMs is the client session\'s rule: 8 ms, or half a slower frame\'s gap, at most 32 ms; an unknown or an away gap gives 8', () => {
    for (const [gap, budget] of [[0, 8], [10, 8], [16.7, 8.35], [20, 10], [40, 20], [64, 32], [100, 32], [999, 32], [1000, 8], [5000, 8]]) {
      assert.equal(tandem.frameBudgetMs(gap), budget, `gap ${gap} ms`);
    }
    assert.throws(() => tandem.frameBudgetMs('16'), TypeError);
  });

  test('workerBudgetMs is all the time since the previous advance, within 8 to 32 ms, however long the wait', () => {
    for (const [since, budget] of [[0, 8], [5, 8], [16.7, 16.7], [20, 20], [32, 32], [40, 32], [1000, 32], [60000, 32]]) {
      assert.equal(tandem.workerBudgetMs(since), budget, `since ${since} ms`);
    }
    assert.throws(() => tandem.workerBudgetMs('16'), TypeError);
  });
});
