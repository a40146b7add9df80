export { classifyReply, classifySmtpResult, isNextHopFailure, type SmtpResult } from './classify-smtp-result';
export { Deliverer, type DelivererOptions, type DeliveryRequest } from './deliverer';
export type { BounceType, DeliveryOutcome, SmtpReply } from './outcome';
export { type RawMessage, rawMessageBytes } from './raw-message';
export { parseRetryAfterSeconds } from './parse-retry-after';
export { parseSmtpReply } from './parse-smtp-reply';
export { type MxHost, type MxRoute, resolveMxRoute } from './resolve-mx';
export { parseSmarthostUrl, type SmarthostUrl } from './smarthost-url';
