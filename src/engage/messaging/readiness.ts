/**
 * Whether an installation may receive a push now: the per-installation conditions of spec 01
 * rule 7 ("privacy, subscription, push readiness … still apply"). Admission checks them for
 * every installation of a send (service.ts), and the delivery worker checks them again before
 * every attempt (delivery.ts, issue 21 point 15), so a device that opted out, was denied
 * permission or lost its token after admission gets nothing more. The codes are the send's
 * diagnostic codes (docs/decisions.md "Transactional push"), in the same order.
 */
import type { DiagnosticCode } from './schemas';

export interface PushConditions {
  appStatus: 'ACTIVE' | 'DISABLED';
  platform: 'IOS' | 'ANDROID';
  privacy: string;
  pushSubscription: string;
  pushPermission: string;
  pushToken: string | null;
}

export type NotReadyCode = Extract<
  DiagnosticCode,
  'APP_DISABLED' | 'PRIVACY_OPTED_OUT' | 'PUSH_UNSUBSCRIBED' | 'PUSH_PERMISSION_DENIED' | 'PUSH_PERMISSION_NOT_DETERMINED' | 'NO_PUSH_TOKEN'
>;

/** Why the installation may not receive a push now; undefined when it may. */
export function notReadyReason(i: PushConditions): NotReadyCode | undefined {
  if (i.appStatus !== 'ACTIVE') return 'APP_DISABLED';
  if (i.privacy === 'OPTED_OUT') return 'PRIVACY_OPTED_OUT';
  if (i.pushSubscription === 'OPTED_OUT') return 'PUSH_UNSUBSCRIBED';
  if (i.pushPermission === 'DENIED') return 'PUSH_PERMISSION_DENIED';
  // iOS shows nothing before the user answers the permission prompt; Android (before 13) may.
  if (i.pushPermission === 'NOT_DETERMINED' && i.platform === 'IOS') return 'PUSH_PERMISSION_NOT_DETERMINED';
  if (!i.pushToken) return 'NO_PUSH_TOKEN';
  return undefined;
}
