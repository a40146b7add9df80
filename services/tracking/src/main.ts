import { loadConfig, runService } from '@mailroom/core';
import { startTracking } from './start-tracking';

void runService('tracking', async () => {
  const tracking = await startTracking(loadConfig());
  return () => tracking.stop();
});
