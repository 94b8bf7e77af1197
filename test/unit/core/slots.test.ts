/** Slots keep their limit even when a holder gives its slot back and asks again in the same turn. */
import { Slots } from '../../../src/core/slots';

test('a slot given back goes to the first waiter, not to a holder asking again at once', async () => {
  const slots = new Slots(1);
  let holding = 0;
  let most = 0;
  const worker = async (rounds: number) => {
    for (let r = 0; r < rounds; r++) {
      await slots.take();
      holding++;
      most = Math.max(most, holding);
      await Promise.resolve();
      holding--;
      slots.give(); // and straight back to take(), as a failed re-hold does
    }
  };
  await Promise.all([worker(5), worker(5), worker(5), worker(5)]);
  expect(most).toBe(1);
  expect(holding).toBe(0);
  // Every slot came back: a fresh holder gets one at once.
  let got = false;
  void slots.take().then(() => (got = true));
  await Promise.resolve();
  expect(got).toBe(true);
});

test('releaseAll lets every waiter through, each then giving its slot back', async () => {
  const slots = new Slots(1);
  await slots.take();
  const waiters = [slots.take(), slots.take()];
  slots.releaseAll();
  await Promise.all(waiters);
  slots.give();
  slots.give();
  slots.give();
  let got = false;
  void slots.take().then(() => (got = true));
  await Promise.resolve();
  expect(got).toBe(true);
});
