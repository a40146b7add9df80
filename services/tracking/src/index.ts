export { BotRules, type BotReason } from './bot-rules';
export { EngagementBuffer } from './engagement-buffer';
export { PIXEL_GIF } from './handle-tracking-request';
export { startTracking, type RunningTracking, type TrackingOptions } from './start-tracking';
