import { Module } from '@nestjs/common';
import { AppConfig } from '@gensvc/shared';
import { WebhookEndpointsController } from './api/webhook-endpoints.controller';
import { WebhookEndpointsProjection } from './application/endpoints/endpoints.projection';
import { EndpointsService } from './application/endpoints/endpoints.service';
import { loadNotificationSettings, NotificationSettings } from './notification-settings';

/**
 * Notifications context: the account's webhook endpoints (stream `webhooks-<account_id>`),
 * messages built from stored events, and their deliveries (stream `webhookdelivery-<id>`).
 * Only apps import it.
 */
@Module({
  controllers: [WebhookEndpointsController],
  providers: [
    { provide: NotificationSettings, useFactory: (config: AppConfig) => loadNotificationSettings(config), inject: [AppConfig] },
    EndpointsService,
    WebhookEndpointsProjection,
  ],
  exports: [NotificationSettings, EndpointsService],
})
export class NotificationsModule {}
