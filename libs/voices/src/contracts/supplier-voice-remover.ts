/**
 * Deletes a voice at the supplier channel that made it. The voices context calls it from
 * its deletion reactor; the suppliers context provides it (HTTP suppliers get a
 * `DELETE /voices/{id}`, the built-in supplier has nothing to delete). A throw means "try
 * again later". Without a provider, a deletion is only recorded here.
 */
export abstract class SupplierVoiceRemover {
  abstract remove(supplier: string, supplierVoiceId: string): Promise<void>;
}
