// The model's public surface: what other layers and the renderer may use.
export * from './client-profiles.js';
export * from './errors.js';
export * from './in-flight.js';
export * from './link.js';
export * from './metadata.js';
export * from './plan.js';
export * from './predict.js';
export * from './presets.js';
export * from './server-profiles.js';
export * from './transfer-time.js';
export * from './units.js';
export * from './workloads.js';
export * from './share-path.js';
export * from './assessment.js';
export * from './smb-security.js';
