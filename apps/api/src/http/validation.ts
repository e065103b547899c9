import { ValidationPipe, type ValidationError } from '@nestjs/common';
import { AppError } from '@gensvc/shared';

/** Flattens class-validator errors into one message that names each offending field. */
export function describeValidationErrors(errors: ValidationError[], parent = ''): string[] {
  const out: string[] = [];
  for (const e of errors) {
    const field = parent ? `${parent}.${e.property}` : e.property;
    for (const msg of Object.values(e.constraints ?? {})) {
      out.push(msg.startsWith(`property ${e.property} `) ? `${field}: unknown field` : `${field}: ${msg.replace(new RegExp(`^${e.property}\\s*`), '')}`);
    }
    if (e.children?.length) out.push(...describeValidationErrors(e.children, field));
  }
  return out;
}

/** DTO validation: unknown fields rejected, types transformed, errors as VALIDATION_ERROR. */
export function createValidationPipe(): ValidationPipe {
  return new ValidationPipe({
    whitelist: true,
    forbidNonWhitelisted: true,
    transform: true,
    forbidUnknownValues: true,
    validationError: { target: false, value: false },
    exceptionFactory: (errors) => new AppError('VALIDATION_ERROR', describeValidationErrors(errors).join('; ') || 'invalid request'),
  });
}
