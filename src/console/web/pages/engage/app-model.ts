/** An app as the administration API answers it (GET …/apps/{appId}). */
export interface App {
  id: string;
  environmentId: string;
  platform: 'IOS' | 'ANDROID';
  name: string;
  appKey: string;
  status: 'ACTIVE' | 'DISABLED';
  bundleId: string | null;
  configurationManaged: boolean;
  createdAt: string;
}
