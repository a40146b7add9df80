import { loadConfig, runService } from '@mailroom/core';
import { startInbound } from './start-inbound';

void runService('inbound-smtp', async () => {
  const inbound = await startInbound(loadConfig());
  return () => inbound.stop();
});
