export * from './api.js';
export * from './copy-test.js';
export * from './plan.js';
export * from './scenario.js';
export * from './validate.js';
export * from './probe.js';
export * from './share-login.js';
export * from './report.js';
