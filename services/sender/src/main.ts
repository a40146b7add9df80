import { loadConfig, runService } from '@mailroom/core';
import { startSender } from './start-sender';

void runService('sender', async () => {
  const sender = await startSender(loadConfig());
  return () => sender.stop();
});
