import { testAddressOutcome } from '@mailroom/core';
import type { DeliveryOutcome } from './delivery';

/** What a test address gives instead of a delivery: the attempt's outcome, and whether a complaint follows it. */
export type SimulatedOutcome = { delivery: DeliveryOutcome | { kind: 'suppressed' }; complaint: boolean };

const HOST = 'sandbox';
const accepted: DeliveryOutcome = { kind: 'delivered', smtp: { code: 250, enhancedCode: '2.0.0', message: 'Accepted by the sandbox' }, host: HOST };

/**
 * The outcome of an attempt to a test address (DESIGN §4 "Test addresses"), decided without any
 * network; null for any other address. `delayed@` is deferred at its first attempt and delivered
 * at the next, which the retry schedule brings; `complained@` is delivered, then complained.
 */
export function simulateOutcome(address: string, attemptsMade: number): SimulatedOutcome | null {
  switch (testAddressOutcome(address)) {
    case null:
      return null;
    case 'delivered':
      return { delivery: accepted, complaint: false };
    case 'complained':
      return { delivery: accepted, complaint: true };
    case 'bounced':
      return {
        delivery: { kind: 'bounced', smtp: { code: 550, enhancedCode: '5.1.1', message: 'No such user (sandbox)' }, bounceType: 'hard', suppress: true },
        complaint: false,
      };
    case 'delayed':
      return attemptsMade === 0
        ? { delivery: { kind: 'deferred', smtp: { code: 451, enhancedCode: '4.4.1', message: 'Delayed by the sandbox' }, error: 'Delayed by the sandbox', retryAfterSeconds: null }, complaint: false }
        : { delivery: accepted, complaint: false };
    case 'suppressed':
      return { delivery: { kind: 'suppressed' }, complaint: false };
  }
}
