/** The terminal table: aligned columns two spaces apart, rules, no borders, colours or trailing blanks. */
import { textTable } from '../../../src/core/text-table';

test('aligned, ruled under the header and where asked, splittable on whitespace', () => {
  const out = textTable(['txs', 'lines', 'share'], [['1-9', '12', '50.0%'], ['10-99', '1234', '50.0%'], ['all', '1246', '100.0%']], {
    align: ['left', 'right', 'right'],
    rulesBefore: [2],
  });
  expect(out.split('\n')).toEqual([
    'txs    lines   share',
    '-----  -----  ------',
    '1-9       12   50.0%',
    '10-99   1234   50.0%',
    '-----  -----  ------',
    'all     1246  100.0%',
  ]);
});

test('a left-aligned last column leaves no trailing blanks; wide characters count once', () => {
  const out = textTable(['a', 'b'], [['x', 'long value'], ['÷÷', '–']]);
  expect(out.split('\n')).toEqual(['a   b', '--  ----------', 'x   long value', '÷÷  –']);
  expect(out).not.toMatch(/\x1b\[/);
});
