export * from './contracts';
export { SuppliersModule } from './suppliers.module';
export { LocalSupplierControls } from './infrastructure/local/local-supplier.controls';
export { SupplierSettings, type HttpChannelConfig } from './supplier-settings';
export { signCallback, isLocalBaseUrl, SIGNATURE_HEADER, TIMESTAMP_HEADER } from './infrastructure/http/callback-security';
export { ChannelStatus } from './application/providers/channel-status';
