import { SetMetadata } from '@nestjs/common';

/**
 * Records an endpoint's `operationId` (the spec's agent-tool operation name) and summary
 * under the metadata key @nestjs/swagger's `@ApiOperation` uses, without loading swagger
 * into every process (it does not load under Jest's CommonJS transform).
 */
export const Operation = (operationId: string, summary: string) => SetMetadata('swagger/apiOperation', { operationId, summary });
