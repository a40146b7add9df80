export { Deliverer, type DelivererOptions, type DeliveryRequest } from './deliverer';
export type { BounceType, DeliveryOutcome, SmtpReply } from './outcome';
export type { RawMessage } from './raw-message';
