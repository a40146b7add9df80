export { type AuthenticationVerdicts, authenticateMessage } from './authenticate';
export { type ParsedMessage, parseMessage } from './parse-message';
export { MAX_PROCESSING_ATTEMPTS, processReceivedEmails } from './process-received';
export { reconcileReceived } from './reconcile-received';
export { type ProcessingOptions, type RunningProcessing, startProcessing } from './start-processing';
