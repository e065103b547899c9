export { CatalogueModule } from './catalogue.module';
export * from './contracts';
