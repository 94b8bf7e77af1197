import { limitRow, pastText, recoveryText, valueText } from '../../../src/core/limit-text';

test('a value found, none found up to what was tried, or not probed', () => {
  expect(valueText({ limit: 'connections-per-source', value: 12, triedUpTo: 13 })).toBe('12 connections');
  expect(valueText({ limit: 'batch-size', value: null, triedUpTo: 2048 })).toBe('none up to 2,048 tried');
  expect(valueText({ limit: 'response-bytes', value: null, triedUpTo: 0 })).toBe('not probed');
});

test('what the server does past a limit, in words, an error with its code and message', () => {
  expect(pastText({ kind: 'error', code: 4, message: 'Batch limit exceeded' })).toBe('error 4: Batch limit exceeded');
  expect(pastText({ kind: 'error', code: null, message: 'x' })).toBe('error: x');
  expect(pastText({ kind: 'empty' })).toBe('empty answer, no error');
  expect(pastText({ kind: 'reset' })).toBe('connection closed, no answer');
  expect(pastText({ kind: 'hang', afterMs: 5000 })).toBe('no answer within 5.0 s');
  expect(pastText({ kind: 'refused' })).toBe('connection refused');
  expect(pastText(null)).toBe('–');
});

test('recovery: ms or s, "never" when it did not come, nothing when no limit was met', () => {
  expect(recoveryText({ past: { kind: 'reset' }, recoveryMs: 3 })).toBe('3 ms');
  expect(recoveryText({ past: { kind: 'reset' }, recoveryMs: 1500 })).toBe('1.5 s');
  expect(recoveryText({ past: { kind: 'reset' }, recoveryMs: null })).toBe('not measured or never');
  expect(recoveryText({ past: null, recoveryMs: null })).toBe('–');
  expect(limitRow({ limit: 'history-size', value: 975, triedUpTo: 1100, past: { kind: 'empty' }, recoveryMs: 2, source: 'measured', note: 'n', carriedFrom: 3 })).toEqual([
    'history-size',
    '975 entries',
    'empty answer, no error',
    '2 ms',
    'n (found in run 3)',
  ]);
});
