import { loadConfig, runService } from '@mailroom/core';
import { startGateway } from './start-gateway';

void runService('gateway', async () => {
  const gateway = await startGateway(loadConfig());
  return () => gateway.stop();
});
