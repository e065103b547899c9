import { Body, Controller, HttpCode, Post } from '@nestjs/common';
import { IsObject, IsOptional, IsString, Length } from 'class-validator';
import { CurrentPrincipal, OpenApiOperations, type Principal, RequireScope } from '@gensvc/http';
import { IssueQuoteHandler, type QuoteResponse } from '../application/issue-quote/issue-quote.handler';
import { QUOTES_OPENAPI } from './quotes.openapi';

/** Body of POST /v1/quotes: exactly these fields (others are refused). */
export class IssueQuoteBody {
  @IsString() @Length(1, 150) model!: string;
  @IsString() @Length(1, 100) capability!: string;
  @IsObject() input!: Record<string, unknown>;
  @IsOptional() @IsObject() options?: Record<string, unknown>;
  @IsOptional() @IsString() currency?: string;
}

@Controller('v1/quotes')
@OpenApiOperations(QUOTES_OPENAPI)
export class QuotesController {
  constructor(private readonly issue: IssueQuoteHandler) {}

  @Post()
  @HttpCode(200)
  @RequireScope('read')
  create(@CurrentPrincipal() principal: Principal, @Body() body: IssueQuoteBody): Promise<QuoteResponse> {
    return this.issue.execute({ principal, ...body });
  }
}
