import { Injectable } from '@nestjs/common';
import { AppError } from '@gensvc/kernel';
import { ReadStore } from '@gensvc/event-sourcing';
import { billView, taskView, type BillView, type TaskView } from '../task-views';
import { listFilter, type ListQuery } from './list-query';
import { TASKS, type TaskDoc } from './tasks.projection';

export interface Page<T> {
  data: T[];
  page: number;
  limit: number;
  has_more: boolean;
}

/** A task document as stored: `_pos` is the position of the last event folded into it. */
export type StoredTask = TaskDoc & { _id: string; _pos: number };

/** Reads of the tasks read model: one task, the task list and the bills. */
@Injectable()
export class TaskQueries {
  constructor(private readonly readStore: ReadStore) {}

  async task(accountId: string, taskId: string): Promise<TaskView> {
    return taskView(await this.stored(accountId, taskId));
  }

  /** The account's task document; NOT_FOUND for an unknown task or another account's. */
  async stored(accountId: string, taskId: string): Promise<StoredTask> {
    const doc = typeof taskId === 'string' && taskId.length <= 100 ? await this.collection().findOne({ _id: taskId }) : null;
    if (!doc || doc.account_id !== accountId) throw new AppError('NOT_FOUND', `task ${taskId} not found`);
    return doc;
  }

  async tasks(accountId: string, query: ListQuery): Promise<Page<TaskView>> {
    return this.page(accountId, query, ['task_id'], taskView);
  }

  async bills(accountId: string, query: ListQuery): Promise<Page<BillView>> {
    return this.page(accountId, query, ['task_id', 'bill_id'], billView);
  }

  private async page<T>(accountId: string, query: ListQuery, idFields: readonly string[], view: (d: TaskDoc) => T): Promise<Page<T>> {
    const docs = await this.collection().find(listFilter(accountId, query, idFields), {
      sort: { created_at: -1, _id: -1 },
      skip: (query.page - 1) * query.limit,
      limit: query.limit + 1,
    });
    return { data: docs.slice(0, query.limit).map(view), page: query.page, limit: query.limit, has_more: docs.length > query.limit };
  }

  private collection() {
    return this.readStore.collection<StoredTask>(TASKS);
  }
}
