import { ValidationPipe, type ValidationError } from '@nestjs/common';
import { AppError } from '@gensvc/kernel';

/**
 * Flattens class-validator errors into one message that names each offending field. A field
 * the DTO declares (an unknown one is `unknown field`) that is absent says `is required`,
 * rather than every rule its missing value breaks.
 */
export function describeValidationErrors(errors: ValidationError[], parent = ''): string[] {
  const out: string[] = [];
  for (const e of errors) {
    const field = parent ? `${parent}.${e.property}` : e.property;
    const messages = Object.values(e.constraints ?? {});
    const unknown = messages.some((msg) => msg.startsWith(`property ${e.property} `));
    if (e.value === undefined && !unknown && messages.length) {
      out.push(`${field}: is required`);
      continue;
    }
    for (const msg of messages) {
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
    // The values are read only to tell an absent field (`is required`); messages never carry them.
    validationError: { target: false, value: true },
    exceptionFactory: (errors) => new AppError('VALIDATION_ERROR', describeValidationErrors(errors).join('; ') || 'invalid request'),
  });
}
