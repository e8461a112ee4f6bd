/**
 * The provider-neutral message a delivery carries (push_deliveries.message): what admission
 * (service.ts) stores and the provider clients (apns.ts, fcm.ts) and the delivery worker read.
 * Its own module so that the send service, which sizes the APNs payload, and the providers,
 * which take the message, do not import each other.
 */
export interface DeliveryMessage {
  title: string;
  body: string;
  deepLink: string;
  data: Record<string, unknown>;
  priority: 'normal' | 'high';
  collapseId?: string;
  /** The inbox entry the send wrote (issue 27): carried as `inboxEntryId` so a tap opens it. */
  inboxEntryId?: string;
}
