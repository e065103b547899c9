import 'reflect-metadata';
import { IsOptional, IsString, MinLength, ValidateNested } from 'class-validator';
import { Type } from 'class-transformer';
import { AppError } from '@gensvc/kernel';
import { createValidationPipe } from './validation';

class Inner {
  @IsString() @MinLength(1) name!: string;
}

class Body {
  @IsString() @MinLength(1) quote_id!: string;
  @IsOptional() @IsString() title?: string;
  @IsOptional() @ValidateNested() @Type(() => Inner) inner?: Inner;
}

/** The message the pipe refuses `value` with. */
async function refusal(value: unknown): Promise<string> {
  try {
    await createValidationPipe().transform(value, { type: 'body', metatype: Body });
  } catch (err) {
    expect(err).toBeInstanceOf(AppError);
    expect((err as AppError).code).toBe('VALIDATION_ERROR');
    return (err as AppError).message;
  }
  throw new Error('accepted');
}

describe('the validation pipe\'s messages', () => {
  it('says "is required" for an absent field the body declares, once', async () => {
    expect(await refusal({})).toBe('quote_id: is required');
    expect(await refusal({ title: 'x', inner: {} })).toBe('quote_id: is required; inner.name: is required');
  });

  it('names the broken rule for a present value, and unknown fields as unknown', async () => {
    expect(await refusal({ quote_id: 5 })).toBe('quote_id: must be longer than or equal to 1 characters; quote_id: must be a string');
    expect(await refusal({ quote_id: '' })).toBe('quote_id: must be longer than or equal to 1 characters');
    expect(await refusal({ quote_id: 'qt_1', extra: 1 })).toBe('extra: unknown field');
  });
});
