export * from './domain-rows';
export * from './present-domain';
export * from './check-domain';
export * from './verified-domains';
