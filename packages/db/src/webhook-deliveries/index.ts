export * from './attempt-row';
export * from './claim-deliveries';
export * from './delivery-target';
export * from './fan-out';
export * from './manual-targets';
export * from './reconcile-deliveries';
export * from './record-attempts';
export * from './recover-deliveries';
