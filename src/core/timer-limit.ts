/** The longest wait a Node timer holds (2^31-1 ms, about 24.8 days); beyond, it fires after 1 ms. */
export const MAX_TIMER_MS = 2 ** 31 - 1;
