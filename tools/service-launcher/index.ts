export * from './service-process.js';
export * from './webhook-receiver.js';
export * from './loopback-server.js';
export * from './free-port.js';
