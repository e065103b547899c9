/** The suppliers context's contracts: what other libraries may import (Nest-free). */
export * from './supplier-gateway';
