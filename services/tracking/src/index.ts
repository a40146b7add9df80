export { BotRules, type BotReason } from './bot-rules';
export { EngagementBuffer } from './engagement-buffer';
export { EngagementSpill } from './engagement-spill';
export { SpillDrainer } from './spill-drainer';
export { SpillFullError } from './spill-full-error';
export { PIXEL_GIF } from './handle-tracking-request';
export { startTracking, type RunningTracking, type TrackingOptions } from './start-tracking';
