import { loadConfig, runService } from '@mailroom/core';
import { startDispatcher } from './start-dispatcher';

void runService('webhook-dispatcher', async () => {
  const dispatcher = await startDispatcher(loadConfig());
  return () => dispatcher.stop();
});
