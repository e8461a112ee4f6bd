export * from './identity';
export * from './sessions';
export * from './engage';
export * from './catalog';
export * from './jobs';
export * from './second-factors';
