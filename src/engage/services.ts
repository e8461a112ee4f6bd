import type { Clock } from '../platform/clock';
import type { Config } from '../platform/config';
import type { Sealer } from '../platform/crypto';
import type { TxRunner } from '../platform/store/store';
import { createBindingService } from './binding/service';
import { createEnvironmentService } from './environments/service';
import { createInspectionService } from './inspection/service';
import { createInstallationService } from './installations/service';
import { createOperationService, type IngestMetrics } from './operations/service';
import { createPrivacyService } from './privacy/service';
import type { EngageStores } from './stores';

/** The engage services, built once for `serve` and the CLI alike. */
export function createEngageServices(deps: {
  store: EngageStores & TxRunner<EngageStores>;
  clock: Clock;
  config: Config;
  sealer: Sealer;
  /** Asks for erased rows to be scrubbed from the database files soon (a background job). */
  scrubDeleted: () => void;
  metrics?: IngestMetrics;
}) {
  const { store, clock } = deps;
  const environments = createEnvironmentService({ store, clock });
  return {
    environments,
    installations: createInstallationService({ store, clock, environments }),
    binding: createBindingService({ store, clock, sealer: deps.sealer, codeTtl: deps.config.bindingCodeTtl }),
    operations: createOperationService({ store, clock, metrics: deps.metrics }),
    privacy: createPrivacyService({ store, clock, scrubDeleted: deps.scrubDeleted }),
    inspection: createInspectionService({ store, environments }),
    /** What the edge routes read before any service runs. */
    limits: { maxRequestBytes: deps.config.maxRequestBytes },
  };
}

export type EngageServices = ReturnType<typeof createEngageServices>;
