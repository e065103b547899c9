import { IsInt, IsString, Length, Matches, Max, Min } from 'class-validator';

/** POST /v1/uploads/prepare (spec: all required, no other fields). */
export class PrepareUploadDto {
  /** 1 to 200 characters; checked (characters, control characters, separators) by the service. */
  @IsString() name!: string;
  @IsString() @Length(1, 100) mime!: string;
  @IsInt() @Min(1) @Max(67_108_864) size!: number;
  @IsString() @Matches(/^[a-f0-9]{64}$/, { message: 'must be the lowercase hex SHA-256 of the file (64 characters)' }) checksum!: string;
  @IsString() @Length(8, 150) idempotency_key!: string;
}

/** POST /v1/uploads/import. */
export class ImportUploadDto {
  @IsString() url!: string;
  @IsString() name!: string;
}
