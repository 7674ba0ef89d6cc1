export * from './plant.js';
export * from './error.js';
export * from './int64.js';
export * from './plant-queries.js';
export * from './change-event.js';
