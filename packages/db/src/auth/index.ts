export { isSessionRevoked, readApiKeyRevocationEpoch, revokeApiKey, revokeSession } from './revocations';
