import { Body, Controller, Get, Headers, HttpCode, Param, Post, Query, Res } from '@nestjs/common';
import type { Response } from 'express';
import { IsOptional, IsString, MinLength } from 'class-validator';
import { AppError, Clock, checkPlainText } from '@gensvc/kernel';
import { CurrentPrincipal, OpenApiOperations, type Principal, RequireScope } from '@gensvc/http';
import { EventStore, SubscriptionEngine, caughtUp } from '@gensvc/event-sourcing';
import { CreateTaskHandler, IdempotencyConflict } from '../application/create-task/create-task.handler';
import { CancelTaskHandler } from '../application/cancel-task/cancel-task.handler';
import { parseListQuery } from '../application/task-list/list-query';
import { TaskQueries, type Page } from '../application/task-list/task-queries';
import { TaskWatch } from '../application/task-list/task-watch';
import { taskView, type BillView, type CancelView, type TaskView } from '../application/task-views';
import { isTerminal, type TaskStatus } from '../domain/task';
import { preferredWait } from './prefer-wait';
import { lastEventVersion, streamTask } from './task-event-stream';
import { TASKS_OPENAPI } from './tasks.openapi';

/** Body of POST /v1/tasks: exactly these fields. */
export class CreateTaskBody {
  @IsString() @MinLength(1) quote_id!: string;
  @IsOptional() @IsString() title?: string;
}

/** Header Idempotency-Key: 8 to 150 characters. */
export function idempotencyKeyOf(value: string | string[] | undefined): string {
  if (value === undefined || value === '') throw new AppError('VALIDATION_ERROR', 'Idempotency-Key: header is required (8 to 150 characters)');
  if (typeof value !== 'string') throw new AppError('VALIDATION_ERROR', 'Idempotency-Key: give the header once');
  if (value.length < 8 || value.length > 150) throw new AppError('VALIDATION_ERROR', 'Idempotency-Key: must be 8 to 150 characters');
  return value;
}

/** title: trimmed, then 1 to 200 characters without control characters; absent → null. */
export function titleOf(title: string | undefined): string | null {
  if (title === undefined || title === null) return null;
  const trimmed = title.trim();
  if (trimmed.length < 1 || [...trimmed].length > 200) throw new AppError('VALIDATION_ERROR', 'title: must be 1 to 200 characters after trimming');
  return checkPlainText(trimmed, 'title');
}

@Controller('v1')
@OpenApiOperations(TASKS_OPENAPI)
export class TasksController {
  constructor(
    private readonly create: CreateTaskHandler,
    private readonly cancel: CancelTaskHandler,
    private readonly queries: TaskQueries,
    private readonly watch: TaskWatch,
    private readonly engine: SubscriptionEngine,
    private readonly events: EventStore,
    private readonly clock: Clock,
  ) {}

  @Post('tasks')
  @HttpCode(202)
  @RequireScope('create')
  async createTask(
    @CurrentPrincipal() principal: Principal,
    @Headers('idempotency-key') key: string | undefined,
    @Headers('prefer') prefer: string | undefined,
    @Body() body: CreateTaskBody,
    @Res({ passthrough: true }) res: Response,
  ): Promise<TaskView> {
    const idempotencyKey = idempotencyKeyOf(key);
    const title = titleOf(body.title);
    const result = await this.create
      .execute({
        type: 'CreateTask',
        data: { account_id: principal.accountId, connection_id: principal.connectionId, idempotency_key: idempotencyKey, quote_id: body.quote_id, title },
        metadata: { now: this.clock.now() },
      })
      .catch((err: unknown) => {
        // The task the key created, for a caller that lost the first answer (docs/api.md).
        if (err instanceof IdempotencyConflict && err.taskId) throw new AppError(err.code, err.message, { Location: `/v1/tasks/${err.taskId}` });
        throw err;
      });
    // A repeat appends nothing itself, yet the first request's events must be readable too.
    // The answer is the command's own result: when the read models lag (ProjectionLagError)
    // the task is stored all the same and answered as created, without applying `Prefer:
    // wait` (which follows the task in the read models).
    if (!(await caughtUp(this.engine.waitFor(result.position ?? (await this.events.headPosition()))))) return taskView(result.task);
    return this.answerAfterWait(principal, result.task.task_id, prefer, res, () => taskView(result.task));
  }

  @Get('tasks')
  @RequireScope('read')
  list(@CurrentPrincipal() principal: Principal, @Query() query: Record<string, unknown>): Promise<Page<TaskView>> {
    return this.queries.tasks(principal.accountId, parseListQuery(query));
  }

  @Get('tasks/:id')
  @RequireScope('read')
  get(
    @CurrentPrincipal() principal: Principal,
    @Param('id') id: string,
    @Headers('prefer') prefer: string | undefined,
    @Res({ passthrough: true }) res: Response,
  ): Promise<TaskView> {
    return this.answerAfterWait(principal, id, prefer, res, () => this.queries.task(principal.accountId, id));
  }

  @Get('tasks/:id/events')
  @RequireScope('read')
  async stream(
    @CurrentPrincipal() principal: Principal,
    @Param('id') id: string,
    @Headers('last-event-id') lastEventId: string | undefined,
    @Res() res: Response,
  ): Promise<void> {
    const follower = await this.watch.follow(principal.accountId, id);
    try {
      await streamTask(res, follower, lastEventVersion(lastEventId));
    } finally {
      follower.close();
    }
  }

  @Post('tasks/:id/cancel')
  @RequireScope('create')
  async cancelTask(
    @CurrentPrincipal() principal: Principal,
    @Param('id') id: string,
    @Res({ passthrough: true }) res: Response,
  ): Promise<CancelView> {
    const result = await this.cancel.execute(principal, id);
    // The answer is the command's own result: a lag of the read models (ProjectionLagError)
    // does not fail it; they show the cancellation once caught up.
    await caughtUp(this.engine.waitFor(result.position ?? (await this.events.headPosition())));
    res.status(cancelStatus(result.view));
    return result.view;
  }

  /**
   * `Prefer: wait=N` (CONTRACT §16): the task once it is finished or as it is after N seconds,
   * with `Preference-Applied`; an invalid preference is ignored and `now` answers at once.
   */
  private async answerAfterWait(principal: Principal, taskId: string, prefer: string | undefined, res: Response, now: () => TaskView | Promise<TaskView>): Promise<TaskView> {
    const seconds = preferredWait(prefer);
    if (seconds === undefined) return now();
    const gone = new AbortController();
    res.on('close', () => gone.abort());
    const task = taskView(await this.watch.waitUntilFinished(principal.accountId, taskId, seconds, gone.signal));
    res.setHeader('Preference-Applied', `wait=${seconds}`);
    return task;
  }

  @Get('billing')
  @RequireScope('read')
  billing(@CurrentPrincipal() principal: Principal, @Query() query: Record<string, unknown>): Promise<Page<BillView>> {
    return this.queries.bills(principal.accountId, parseListQuery(query));
  }
}

/** 202 while the supplier's answer is outstanding; 200 once the cancellation is decided (confirmed, not needed, refused, unconfirmed). */
function cancelStatus(view: CancelView): 200 | 202 {
  const c = view.cancellation.status;
  return !isTerminal(view.status as TaskStatus) && (c === 'requested' || c === 'checking' || c === 'none') ? 202 : 200;
}
