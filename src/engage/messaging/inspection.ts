/** Inspection of sends and deliveries (`engage sends show`, `engage deliveries list`): never a push token in clear. */
import type { MessagingStore, DeliveryRow, DeliveryState } from './store';
import { DEFAULT_PAGE_SIZE, limitOf, pageFrom, type Page, type PageRequest } from '../../platform/http/pagination';
import { MessagingErrors } from './errors';
import type { MessagingInspectionStore, SendListRow } from './inspection-store';

type Stores = { messaging: MessagingStore; messagingInspection: MessagingInspectionStore };

/** A send as the administration API lists it (issue 24): a test send is marked `isTest`. */
const sendLine = (s: SendListRow) => ({
  id: s.id,
  templateId: s.templateId,
  templateKey: s.templateKey,
  templateVersion: Number(s.templateVersion),
  recipient: { type: s.recipientType, value: s.recipientValue },
  accessKeyId: s.accessKeyId,
  isTest: Number(s.isTest) === 1,
  createdAt: s.createdAt,
});

/** A delivery as the administration API shows it: no push token at all, not even masked. */
const adminDelivery = (d: DeliveryRow) => {
  const { token: _token, ...rest } = deliveryView(d);
  return rest;
};

const masked = (token: string) => (token.length <= 8 ? '****' : `${token.slice(0, 4)}…${token.slice(-4)}`);

/** The states of push_deliveries (src/db/schema/push.ts). */
export const DELIVERY_STATES: readonly DeliveryState[] = ['PENDING', 'SENT', 'DELIVERED', 'OPENED', 'FAILED', 'EXPIRED'];

export interface DeliveryView {
  id: string;
  sendId: string;
  installationId: string;
  appId: string;
  provider: DeliveryRow['provider'];
  token: string;
  state: DeliveryRow['state'];
  attempts: number;
  lastError: string | null;
  nextAttemptAt: string | null;
  createdAt: string;
  sentAt: string | null;
  deliveredAt: string | null;
  openedAt: string | null;
}

export const deliveryView = (d: DeliveryRow): DeliveryView => ({
  id: d.id,
  sendId: d.sendId,
  installationId: d.installationId,
  appId: d.appId,
  provider: d.provider,
  token: masked(d.token),
  state: d.state,
  attempts: Number(d.attempts),
  lastError: d.lastError,
  nextAttemptAt: d.state === 'PENDING' ? new Date(Number(d.nextAttemptMs)).toISOString() : null,
  createdAt: d.createdAt,
  sentAt: d.sentAt,
  deliveredAt: d.deliveredAt,
  openedAt: d.openedAt,
});

export function createMessagingInspection(deps: { store: Stores }) {
  const { store } = deps;
  /** The send `id` of the environment; sendNotFound for none there (another environment's too). */
  async function sendIn(environmentId: string, id: string): Promise<SendListRow> {
    const s = await store.messagingInspection.sendIn(environmentId, id);
    if (!s) throw MessagingErrors.sendNotFound(id);
    return s;
  }
  return {
    /** A page of the environment's sends, newest first, filtered by template key, test mark, a delivery state (issue 24) and an installation delivered to (issue 25). */
    async pageSends(environmentId: string, f: { template?: string; test?: boolean; state?: string; installation?: string }, req: PageRequest) {
      if (f.state !== undefined && !DELIVERY_STATES.includes(f.state as DeliveryState)) throw MessagingErrors.invalid(`state: must be one of ${DELIVERY_STATES.join(', ')}`);
      const { limit, offset } = limitOf(req);
      return pageFrom((await store.messagingInspection.pageSends(environmentId, f, limit, offset)).map(sendLine), req);
    },
    /** One send of the environment with its deliveries counted by state. */
    async sendOf(environmentId: string, id: string) {
      const s = await sendIn(environmentId, id);
      return { ...sendLine(s), deliveries: await store.messagingInspection.deliveryStates(environmentId, id) };
    },
    /** A page of the deliveries of a send of the environment (oldest first), without push tokens. */
    async deliveriesOf(environmentId: string, sendId: string, state: string | undefined, req: PageRequest) {
      await sendIn(environmentId, sendId);
      if (state !== undefined && !DELIVERY_STATES.includes(state as DeliveryState)) throw MessagingErrors.invalid(`state: must be one of ${DELIVERY_STATES.join(', ')}`);
      const { limit, offset } = limitOf(req);
      return pageFrom((await store.messaging.pageDeliveries({ sendId }, state as DeliveryState | undefined, limit, offset)).map(adminDelivery), req);
    },
    /** A page of the deliveries to an installation (newest first), without push tokens; the caller has checked the installation is the environment's (issue 25: its timeline). */
    async deliveriesToInstallation(installationId: string, state: string | undefined, req: PageRequest) {
      if (state !== undefined && !DELIVERY_STATES.includes(state as DeliveryState)) throw MessagingErrors.invalid(`state: must be one of ${DELIVERY_STATES.join(', ')}`);
      const { limit, offset } = limitOf(req);
      return pageFrom((await store.messaging.pageDeliveries({ installationId }, state as DeliveryState | undefined, limit, offset)).map(adminDelivery), req);
    },
    async showSend(id: string) {
      const s = await store.messaging.findSendById(id);
      if (!s) throw MessagingErrors.sendNotFound(id);
      const t = await store.messaging.findTemplateById(s.templateId);
      const deliveries = (await store.messaging.deliveriesOfSend(id)).map(deliveryView);
      const states: Record<string, number> = {};
      for (const d of deliveries) states[d.state] = (states[d.state] ?? 0) + 1;
      return {
        id: s.id,
        environmentId: s.environmentId,
        templateKey: t?.key ?? null,
        templateVersion: Number(s.templateVersion),
        idempotencyKey: s.idempotencyKey,
        recipient: { type: s.recipientType, value: s.recipientValue },
        accessKeyId: s.accessKeyId,
        /** A console test send (issue 24 point 4): outside rate limits and counts. */
        isTest: Number(s.isTest) === 1,
        createdAt: s.createdAt,
        response: JSON.parse(s.response) as unknown,
        deliveries: states,
      };
    },
    /**
     * A page of the deliveries of a send (oldest first) or of an installation (newest first), in one
     * state when `state` is given; size + 1 rows read to answer hasMore (the pagination contract's).
     */
    async listDeliveries(by: { send?: string; installation?: string; state?: string }, req: PageRequest = { page: 0, size: DEFAULT_PAGE_SIZE }): Promise<Page<DeliveryView>> {
      if (by.state !== undefined && !DELIVERY_STATES.includes(by.state as DeliveryState)) throw MessagingErrors.invalid(`state: must be one of ${DELIVERY_STATES.join(', ')}`);
      const of = by.send ? { sendId: by.send } : by.installation ? { installationId: by.installation } : undefined;
      if (!of) throw MessagingErrors.invalid('give --send or --installation');
      const { limit, offset } = limitOf(req);
      return pageFrom((await store.messaging.pageDeliveries(of, by.state as DeliveryState | undefined, limit, offset)).map(deliveryView), req);
    },
  };
}
