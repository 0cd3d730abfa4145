/** class-transformer's metadata store, which its package declares only under `types/`. */
declare module 'class-transformer/cjs/storage.js' {
  export const defaultMetadataStorage: unknown;
}
