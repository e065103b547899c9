import { Injectable } from '@nestjs/common';
import { Clock } from '@gensvc/kernel';
import { SupplierGateway, type CancelAnswer, type SupplierJobRequest } from '../../contracts/supplier-gateway';
import { CancelJobHandler } from '../cancel-job/cancel-job.handler';
import { SubmitJobHandler } from '../submit-job/submit-job.handler';

/**
 * The suppliers context as the tasks context sees it (the `SupplierGateway` port): `submit`
 * sends SubmitJob, `requestCancel` sends CancelJob, each stamped with the clock.
 */
@Injectable()
export class SupplierGatewayService extends SupplierGateway {
  constructor(
    private readonly submitJob: SubmitJobHandler,
    private readonly cancelJob: CancelJobHandler,
    private readonly clock: Clock,
  ) {
    super();
  }

  override submit(request: SupplierJobRequest): Promise<void> {
    return this.submitJob.execute({
      type: 'SubmitJob',
      data: { task_id: request.taskId, account_id: request.accountId, model_id: request.modelId, capability: request.capability, params: request.params },
      metadata: { now: this.clock.now() },
    });
  }

  override requestCancel(taskId: string, accountId = ''): Promise<CancelAnswer> {
    return this.cancelJob.execute({ type: 'CancelJob', data: { task_id: taskId, account_id: accountId }, metadata: { now: this.clock.now() } });
  }
}
