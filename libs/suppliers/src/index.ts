export * from './contracts';
export { SuppliersModule } from './suppliers.module';
export { LocalSupplierControls } from './infrastructure/local/local-supplier.controls';
export { SupplierSettings, type HttpChannelConfig } from './supplier-settings';
export { signCallback, isLocalBaseUrl, SIGNATURE_HEADER, TIMESTAMP_HEADER } from './infrastructure/http/callback-security';

import { SupplierJobsProjection } from './application/job-list/supplier-jobs.projection';
/** The read models this context projects, for a projection runner outside Nest (they take no dependencies). */
export const SUPPLIERS_PROJECTIONS = [SupplierJobsProjection] as const;
