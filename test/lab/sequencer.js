/**
 * The lab tier's order: test files that change the chain (they mine blocks and pay addresses, so
 * the lab's datasets no longer describe it) run after every other, which relies on the chain as
 * generated. The rest keep jest's own order.
 */
const Sequencer = require('@jest/test-sequencer').default;

const CHANGES_CHAIN = /\.chain-changing\.test\.ts$/;

class LabSequencer extends Sequencer {
  sort(tests) {
    const sorted = super.sort(tests);
    return [...sorted.filter((t) => !CHANGES_CHAIN.test(t.path)), ...sorted.filter((t) => CHANGES_CHAIN.test(t.path))];
  }
}

module.exports = LabSequencer;
