import { loadConfig, runService } from '@mailroom/core';

// The MX server; see start-inbound.ts.
void runService('inbound-smtp', async () => {
  const { startInbound } = await import('./start-inbound');
  const inbound = await startInbound(loadConfig());
  return () => inbound.stop();
});
