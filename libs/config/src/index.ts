/** The service's configuration (`AppConfig`, read from the environment) and private files. */
export * from './config';
export * from './private-files';
