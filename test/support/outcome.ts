import { ElectrumError } from '../../src/electrum/errors';

/** How a call ended: 'ok', or its error category (what a sample would record). */
export async function outcome(p: Promise<unknown>): Promise<string> {
  try {
    await p;
    return 'ok';
  } catch (err) {
    return err instanceof ElectrumError ? err.category : String(err);
  }
}

/** The ElectrumError a call failed with; fails the test if it succeeded or threw anything else. */
export async function failure(p: Promise<unknown>): Promise<ElectrumError> {
  try {
    await p;
  } catch (err) {
    expect(err).toBeInstanceOf(ElectrumError);
    return err as ElectrumError;
  }
  throw new Error('expected the call to fail');
}
