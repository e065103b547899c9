import { Module, type DynamicModule } from '@nestjs/common';
import { AppConfig } from '@gensvc/config';
import { type ModuleDependencies } from '@gensvc/http';
import { WebhookEndpointsController } from './api/webhook-endpoints.controller';
import { WebhookDeliveriesProjection } from './application/deliveries/deliveries.projection';
import { DeliveriesService } from './application/deliveries/deliveries.service';
import { DeliveryDispatchReactor } from './application/deliveries/delivery-dispatch.reactor';
import { DeliveryMetrics } from './application/deliveries/delivery-metrics';
import { DeliveryRunner } from './application/deliveries/delivery-runner';
import { WebhookEndpointsProjection } from './application/endpoints/endpoints.projection';
import { EndpointsService } from './application/endpoints/endpoints.service';
import { MessagesReactor } from './application/messages/messages.reactor';
import { DnsWebhookNetwork, WebhookNetwork } from './infrastructure/webhook-network';
import { WebhookSender } from './infrastructure/webhook-sender';
import { loadNotificationSettings, NotificationSettings } from './notification-settings';

/**
 * Notifications context: the account's webhook endpoints (stream `webhooks-<account_id>`),
 * messages built from stored events by a reactor, and their deliveries (stream
 * `webhookdelivery-<id>`), sent by the delivery runner. Only apps import it; it imports the
 * storage module.
 */
@Module({})
export class NotificationsModule {
  static register(deps: ModuleDependencies): DynamicModule {
    return {
      module: NotificationsModule,
      imports: deps.imports,
      controllers: [WebhookEndpointsController],
      providers: [
        { provide: NotificationSettings, useFactory: (config: AppConfig) => loadNotificationSettings(config), inject: [AppConfig] },
        { provide: WebhookNetwork, useClass: DnsWebhookNetwork },
        EndpointsService,
        WebhookEndpointsProjection,
        WebhookDeliveriesProjection,
        DeliveryMetrics,
        MessagesReactor,
        WebhookSender,
        DeliveryRunner,
        DeliveryDispatchReactor,
        DeliveriesService,
      ],
      exports: [NotificationSettings, EndpointsService, WebhookNetwork, DeliveryRunner],
    };
  }
}
