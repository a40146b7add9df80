export { startInbound, type InboundOptions, type RunningInbound } from './start-inbound';
