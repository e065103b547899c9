/** The blob store port: where the bytes of uploads and assets live (adapters in storage). */
export * from './blob-store.port';
