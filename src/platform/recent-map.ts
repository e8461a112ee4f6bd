/**
 * A bounded map of recent entries: two generations of maps, the younger replacing the older when
 * full, so a lookup and an insertion are O(1) and at most 2 × `perGeneration` entries are held; an
 * entry found in the older generation moves to the younger. What the signed cursors keep (the
 * sync's and the inbox's): the texts this process issued or verified, with what they decode to, so
 * the next request carrying one is answered without base64, HMAC or parsing.
 */
export function createRecentMap<K, V>(perGeneration: number) {
  let young = new Map<K, V>();
  let old = new Map<K, V>();
  const put = (key: K, value: V) => {
    young.set(key, value);
    if (young.size >= perGeneration) {
      old = young;
      young = new Map();
    }
  };
  return {
    get(key: K): V | undefined {
      const held = young.get(key);
      if (held !== undefined) return held;
      const older = old.get(key);
      if (older !== undefined) put(key, older);
      return older;
    },
    put,
  };
}
