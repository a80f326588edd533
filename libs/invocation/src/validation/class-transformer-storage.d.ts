// class-transformer keeps its metadata store in a module of its own, typed under `types/`.
declare module 'class-transformer/cjs/storage' {
  export { defaultMetadataStorage } from 'class-transformer/types/storage';
}
