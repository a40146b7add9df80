/** The domain of test addresses (DESIGN §4 "Test addresses"): never delivered over the network, never suppressed. */
export const TEST_ADDRESS_DOMAIN = 'sandbox.mailroom.test';

/** The outcomes a test address simulates, by its local part. */
export type TestAddressOutcome = 'delivered' | 'bounced' | 'complained' | 'delayed' | 'suppressed';

const OUTCOMES: ReadonlySet<string> = new Set<TestAddressOutcome>(['delivered', 'bounced', 'complained', 'delayed', 'suppressed']);

/** Whether `address` (no display name) is at the test domain, in any case. */
export function isTestAddress(address: string): boolean {
  return address.toLowerCase().endsWith(`@${TEST_ADDRESS_DOMAIN}`);
}

/**
 * The outcome a test address simulates, or null for an address outside the test domain. A local
 * part that names no outcome (`anything@sandbox.mailroom.test`) is delivered; `+tags` are ignored,
 * so `bounced+signup@` bounces.
 */
export function testAddressOutcome(address: string): TestAddressOutcome | null {
  if (!isTestAddress(address)) return null;
  const local = address.slice(0, address.lastIndexOf('@')).toLowerCase().split('+')[0] ?? '';
  return OUTCOMES.has(local) ? (local as TestAddressOutcome) : 'delivered';
}
