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
